// Policies by name, as every command's `--policy` flag takes them: scripted, openai:MODEL, gemini:MODEL, or a
// checkpoint directory of the student.
import { existsSync, statSync } from 'node:fs';
import { extractSpec } from '../reward/extract.ts';
import { BaselinePolicy, BASELINE_NAMES, type BaselineName } from './baselines.ts';
import { GeminiPolicy } from '../../policy/gemini.ts';
import { OpenAIPolicy } from '../../policy/openai.ts';
import type { Policy } from '../../policy/policy.ts';
import type { QuirkRates } from './quirks.ts';
import type { RemoteOptions, ResponseSchema } from '../../policy/remote.ts';
import { responseJsonSchema } from '../language/actions.ts';
import { ScriptedPolicy, type SpecLookup } from './scripted.ts';

export interface PolicySettings extends RemoteOptions {
  /** Scripted teacher: specs of known tasks by prompt; other prompts get an extracted spec. */
  specFor?: SpecLookup;
  /** Scripted teacher only. */
  quirks?: QuirkRates;
  /** The scripted teacher's request walk (walk.ts); on unless false. */
  walk?: boolean;
  /** Remote policies: server base URL and key (else the environment's). */
  baseUrl?: string;
  apiKey?: string;
  /** OpenAI-compatible servers that refuse `n`. */
  singleChoice?: boolean;
  /** Constrain answers to the action language: the student's guided decoding (default off), a remote model's
   *  `response_format` (default on). */
  structuredOutput?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** What remote policies answer in: the action language's response schema. */
const actionAnswers = (): ResponseSchema => ({ name: 'diagram_actions', schema: responseJsonSchema() });

export const POLICY_FORMS = `scripted, openai:MODEL, gemini:MODEL, baseline:${BASELINE_NAMES.join('|')}, or a student checkpoint directory`;

/** Builds the policy a name stands for; throws an Error that names the accepted forms. */
export async function policyFromSpec(spec: string, settings: PolicySettings = {}): Promise<Policy> {
  const remote: RemoteOptions = {
    concurrency: settings.concurrency,
    timeoutMs: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    backoffMs: settings.backoffMs,
    maxBackoffMs: settings.maxBackoffMs,
  };
  const isRemote = spec.startsWith('openai:') || spec.startsWith('gemini:');
  if (settings.quirks && Object.keys(settings.quirks).length > 0 && spec !== 'scripted') {
    throw new Error(`quirks are a scripted-teacher setting; policy ${JSON.stringify(spec)} does not take them`);
  }
  if (!isRemote && (settings.baseUrl || settings.apiKey)) throw new Error(`a base URL and an API key apply to openai: and gemini: policies, not ${JSON.stringify(spec)}`);
  if (settings.structuredOutput && spec === 'scripted') throw new Error('structured output applies to student checkpoints and remote models, not to the scripted teacher');
  if (spec.startsWith('baseline:')) {
    const name = spec.slice('baseline:'.length) as BaselineName;
    if (!BASELINE_NAMES.includes(name)) throw new Error(`unknown baseline ${JSON.stringify(name)}: baselines are ${BASELINE_NAMES.join(', ')}`);
    return new BaselinePolicy(name, (prompt) => settings.specFor?.(prompt) ?? extractSpec(prompt));
  }
  if (spec === 'scripted') return new ScriptedPolicy({ specFor: settings.specFor, extract: extractSpec, quirks: settings.quirks, walk: settings.walk });
  if (spec.startsWith('openai:')) {
    return new OpenAIPolicy({ model: spec.slice('openai:'.length), baseURL: settings.baseUrl, apiKey: settings.apiKey, singleChoice: settings.singleChoice, ...(settings.structuredOutput ?? true ? { responseSchema: actionAnswers() } : {}), env: settings.env, ...remote });
  }
  if (spec.startsWith('gemini:')) {
    return new GeminiPolicy({ model: spec.slice('gemini:'.length), baseUrl: settings.baseUrl, apiKey: settings.apiKey, responseSchema: actionAnswers(), env: settings.env, ...remote });
  }
  if (existsSync(spec) && statSync(spec).isDirectory()) {
    // Loaded on demand: the student pulls in the model code, which the teacher and remote policies do not need.
    const { StudentPolicy } = await import('../../policy/student.ts');
    const { actionGuides } = await import('../language/structured.ts');
    return StudentPolicy.load(spec, { guideFor: settings.structuredOutput ? actionGuides : undefined });
  }
  throw new Error(`unknown policy ${JSON.stringify(spec)}: expected ${POLICY_FORMS}`);
}
