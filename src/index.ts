// canvasgym as a library (`import { ... } from 'canvasgym'`): the names a project that trains or scores agents uses,
// whatever file of the toolkit holds them. What is not here is internal and may move.

// The environment: the action language, executing a completion on the canvas, multi-turn episodes.
export { Action, ACTION_TYPES, DEFAULT_MAX_ACTIONS, responseJsonSchema, responseSchema, SHAPE_KINDS, type ActionType, type ShapeKind } from './diagram/language/actions.ts';
export { Canvas, type Arrow, type CanvasJson, type Shape } from './diagram/language/canvas.ts';
export { executeCompletion, type Execution, type ExecuteOptions } from './diagram/language/execute.ts';
export { parseCompletion, type ParseError, type ParseResult } from './diagram/language/parse.ts';
export type { ActionError, ActionOutcome, ApplyResult } from './diagram/language/apply.ts';
export { DiagramEpisode, EPISODE_NAMES, type EpisodeName, type Observation } from './diagram/episode.ts';
export { EditingEpisode } from './editing/episode.ts';
export { EpisodeError, type Env, type ResetResult, type StepAction, type StepResult } from './environment/env.ts';
export { makeEpisode } from './server/episodes.ts';
export { checkEnv, type CheckOptions, type CheckReport } from './environment/check-env.ts';

// Tasks: the diagram requests of each split.
export { generateTasks, maxDistinct, TaskRequestError, type GenerateOptions, type TaskFilter } from './diagram/tasks/generate.ts';
export { DIAGRAM_KINDS, DiagramKind, DiagramSpec, Task } from './diagram/tasks/spec.ts';
export { SPLITS, type Split } from './diagram/tasks/scenarios.ts';
// A user's own requests made tasks: specs from the extraction or from a chat model, checked against the request.
export { extractSpec } from './diagram/reward/extract.ts';
export { SPEC_PROMPT, SpecModel, type ModelSpec, type SpecModelOptions } from './diagram/specs/spec-model.ts';
export { groundedSpec } from './diagram/specs/grounded.ts';
export { reviewSpecs, taskFromPrompt, type PromptTask, type SpecReview } from './diagram/specs/from-prompt.ts';

// Rewards: rubrics of named, weighted components, and the optional judge.
export { getRubric, RUBRIC_NAMES } from './diagram/reward/presets.ts';
export { defineRubric, type Component, type Rubric, type RubricDefinition, type Score, type ScoreInput } from './diagram/reward/rubric.ts';
export { Judge, parseJudgeSpec } from './diagram/reward/judge.ts';
export { withJudgment, type Judgment } from './environment/judge.ts';

// Rendering a canvas.
export { renderSvg, type SvgOptions } from './diagram/render/svg.ts';
export { renderPng, type PngOptions } from './render/png.ts';

// Policies: what answers a conversation.
export type { ChatMessage, Completion, FinishReason, Policy, SamplingOptions } from './policy/policy.ts';
export { conversationFor, SYSTEM_PROMPT } from './diagram/language/prompt.ts';
export { policyFromSpec, POLICY_FORMS, type PolicySettings } from './diagram/teacher/registry.ts';
export { ScriptedPolicy, type ScriptedOptions } from './diagram/teacher/scripted.ts';
export { OpenAIPolicy, type OpenAIPolicyOptions } from './policy/openai.ts';
export { GeminiPolicy, type GeminiPolicyOptions } from './policy/gemini.ts';
export { BaselinePolicy, BASELINE_NAMES, type BaselineName } from './diagram/teacher/baselines.ts';
export { StudentPolicy, type StudentOptions } from './policy/student.ts';
export { QUIRK_NAMES, type QuirkName, type QuirkRates } from './diagram/teacher/quirks.ts';
export { runTeacher, type TeacherOptions, type TeacherSummary, type TrainRow } from './diagram/teacher/teacher.ts';

// The student model.
export { GPT, MODEL_INITS, presetConfig, type GPTConfig, type ModelInit } from './model/gpt.ts';
export { Tokenizer, trainTokenizer, type TrainTokenizerOptions } from './model/tokenizer.ts';
export { CheckpointError, checkCheckpoint, loadCheckpoint, saveCheckpoint, type LoadedCheckpoint } from './model/checkpoint.ts';
export { BACKENDS, setDefaultBackend, type Backend } from './model/kernels.ts';

// Environments: the interface the trainers and evaluation take, the built-in ones by name (docs/environments.md).
export type { EnvOutcome, EnvReward, EnvScore, EnvTask, TextEnv } from './environment/text-env.ts';
export { DEFAULT_ENV as DEFAULT_TEXT_ENV, ENV_NAMES as TEXT_ENV_NAMES, ENVIRONMENTS as TEXT_ENVS, getEnv as getTextEnv } from './cli/environments.ts';
export { diagramEnv, rubricReward } from './diagram/diagram-env.ts';
export { arithmeticEnv } from './arithmetic/arithmetic-env.ts';

// Trainers, evaluation and the whole pipeline.
export { PRESETS as SFT_PRESETS, readSftData, runSft, sftConfig, SftInputError, type SFTConfig, type SftResult, type SftRunOptions } from './train/sft.ts';
export { GRPO_DEFAULTS, grpoConfig, GrpoInputError, trainGrpo, type GRPOConfig, type GrpoLogRow, type GrpoResult, type GrpoRunOptions } from './train/grpo.ts';
export { evaluatePolicy, type EvalMetrics, type EvalOptions, type EvalResult, type Rollout } from './eval/evaluate.ts';
export { renderReport } from './eval/report.ts';
export { RUN_CONFIGS, RUN_PRESETS, runPipeline, type RunConfig, type RunOptions, type RunPreset, type RunResult } from './pipeline/run.ts';

// The environment and the student over HTTP.
export { DEFAULT_CONFIG as SERVER_DEFAULTS, startServer, type RunningServer, type ServerConfig } from './server/app.ts';
