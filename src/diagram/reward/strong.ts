// The `strong` preset: the seed document's stronger reward, with its weights, built to be hard to fool.
// Syntax (parses, schema, canvas accepts) gives partial credit per action; semantics (entities, edges) is measured
// against the task spec or, without one, against a spec extracted from the prompt; layout is measured on geometry.
import type { Canvas, Shape } from '../language/canvas.ts';
import { executeCompletion, type Execution } from '../language/execute.ts';
import type { JsonSource } from '../language/parse.ts';
import type { DiagramSpec } from '../tasks/spec.ts';
import { extractSpec } from './extract.ts';
import { labelMatch, matchEntities, normalizeLabel, spellOut } from './labels.ts';
import { scoreCanvasLayout, type LayoutReport } from './layout.ts';
import { defineRubric, type RendererReadback, type ScoreInput } from './rubric.ts';

/**
 * Parse credit by where the JSON was found. The system prompt asks for bare JSON: a fenced block still works but
 * costs a little, JSON dug out of prose costs more, so that RL moves the policy to clean output.
 */
export const PARSE_CREDIT: Record<JsonSource, number> = { whole: 1, fenced: 0.8, span: 0.6 };
/** Share of edges_correct that requested arrow labels carry, when the spec asks for any. */
export const EDGE_LABEL_SHARE = 0.15;
/** entities_present when the prompt names no entity the extractor recognises: half credit for any labeled shape. */
export const UNKNOWN_ENTITIES_CREDIT = 0.5;
/** Share of an entity's credit kept when the spec asks for a shape kind and the diagram draws another. */
export const WRONG_SHAPE_CREDIT = 0.75;

/** Unmatched shapes a diagram may have for free (a title, a legend), growing slowly with its size. */
export function shapeAllowance(entities: number): number {
  return 1 + Math.floor(entities / 3);
}

export interface EntityReport {
  entity: string;
  /** Id of the shape matched to it, or null. */
  shape: string | null;
  quality: number;
}

export interface EdgeReport {
  expected: number;
  /** Expected edges drawn in the right direction. */
  correct: number;
  /** Expected edges drawn only backwards. */
  reversed: number;
  /** Arrows that realise no expected edge (wrong pair, reversed, duplicate, or touching an unmatched shape). */
  wrong: number;
  arrows: number;
  /** Requested arrow labels and how well the drawn ones match, in [0, 1]; null when none were requested. */
  labels: number | null;
  /** Without expected edges: share of matched entities the arrows join into one component. */
  connectivity: number | null;
}

export interface StrongAnalysis {
  exec: Execution;
  spec: DiagramSpec;
  specSource: 'input' | 'prompt';
  shapes: Shape[];
  entities: EntityReport[];
  /** Shapes not matched to any entity, beyond the allowance for titles and notes. */
  excessShapes: number;
  edges: EdgeReport;
  layout: LayoutReport | null;
  values: {
    parses_json: number;
    schema_valid: number;
    renderer_accepts: number;
    entities_present: number;
    edges_correct: number;
    layout_quality: number;
  };
}

function parseCredit(source: JsonSource | undefined): number {
  return source ? PARSE_CREDIT[source] : 0;
}

/** schema_valid and renderer_accepts from outcome counts: `n` actions run, of which some failed the schema, some applied. */
function syntaxShares(n: number, schemaErrors: number, applied: number, shapes: number): { schema: number; accepted: number } {
  if (n === 0) return { schema: 0, accepted: 0 };
  return { schema: (n - schemaErrors) / n, accepted: shapes > 0 ? applied / n : 0 };
}

function execShares(exec: Execution, readback?: RendererReadback): { schema: number; accepted: number } {
  let schemaErrors = 0;
  for (const o of exec.outcomes) if (!o.applied && o.error?.kind === 'schema') schemaErrors++;
  const applied = (readback?.outcomes ?? exec.outcomes).filter((o) => o.applied).length;
  const shapes = readback ? readback.shapes : (exec.canvas?.shapes.size ?? 0);
  return syntaxShares(exec.outcomes.length, schemaErrors, applied, shapes);
}

function entitiesPresent(spec: DiagramSpec, shapes: Shape[]): { reports: EntityReport[]; excess: number; value: number } {
  if (spec.entities.length === 0) {
    const labeled = shapes.filter((s) => s.text.trim()).length;
    return { reports: [], excess: 0, value: shapes.length ? (UNKNOWN_ENTITIES_CREDIT * labeled) / shapes.length : 0 };
  }
  const { assignment, quality } = matchEntities(
    spec.entities,
    shapes.map((s) => s.text),
  );
  const reports = spec.entities.map((entity, i) => {
    const shape = assignment[i] === -1 ? null : shapes[assignment[i]];
    // A spec that asks for a kind of shape (a decision as a diamond) pays less for the right label in the wrong shape.
    const wanted = spec.shapes?.[entity];
    const kindFactor = shape && wanted && shape.shape !== wanted ? WRONG_SHAPE_CREDIT : 1;
    return { entity, shape: shape ? shape.id : null, quality: quality[i] * kindFactor };
  });
  const matched = reports.filter((r) => r.shape !== null).length;
  const n = spec.entities.length;
  const excess = Math.max(0, shapes.length - matched - shapeAllowance(n));
  const recall = reports.reduce((a, r) => a + r.quality, 0) / n;
  return { reports, excess, value: (recall * n) / (n + excess) };
}

/** The shape matched to an entity named as the spec names it, or in its canonical form. */
function shapeNamed(shapeOf: Map<string, string>, name: string): string | undefined {
  return shapeOf.get(name) ?? shapeOf.get(normalizeLabel(name).compact);
}

function edgesCorrect(
  spec: DiagramSpec,
  specSource: 'input' | 'prompt',
  entities: EntityReport[],
  canvas: Canvas | null,
): { report: EdgeReport; value: number } {
  const arrows = canvas?.arrows ?? [];
  const shapeOf = new Map<string, string>();
  for (const e of entities) {
    if (!e.shape) continue;
    shapeOf.set(e.entity, e.shape);
    shapeOf.set(normalizeLabel(e.entity).compact, e.shape);
  }
  const report: EdgeReport = {
    expected: spec.edges.length,
    correct: 0,
    reversed: 0,
    wrong: 0,
    arrows: arrows.length,
    labels: null,
    connectivity: null,
  };

  let structure: number;
  if (spec.edges.length > 0) {
    // Index of the first arrow from each shape to each other shape.
    const firstArrow = new Map<string, Map<string, number>>();
    for (let i = 0; i < arrows.length; i++) {
      const { from, to } = arrows[i];
      let targets = firstArrow.get(from);
      if (!targets) firstArrow.set(from, (targets = new Map()));
      if (!targets.has(to)) targets.set(to, i);
    }
    const useful = new Set<number>();
    for (const [from, to] of spec.edges) {
      const a = shapeNamed(shapeOf, from);
      const b = shapeNamed(shapeOf, to);
      if (!a || !b) continue;
      const fwd = firstArrow.get(a)?.get(b);
      if (fwd !== undefined) {
        report.correct++;
        useful.add(fwd);
      } else if (firstArrow.get(b)?.has(a)) {
        report.reversed++;
      }
    }
    report.wrong = arrows.length - useful.size;
    const recall = report.correct / spec.edges.length;
    const precision = arrows.length ? useful.size / arrows.length : 0;
    // A product rather than F1: an answer that spams every pair, or misses half, should not keep most of the credit.
    structure = recall * precision;
  } else if (specSource === 'input') {
    // The task asks for no arrows: each one drawn costs.
    report.wrong = arrows.length;
    structure = 1 / (1 + arrows.length);
  } else {
    structure = connectivityScore(entities, arrows, report);
  }

  const requested = Object.entries(spec.edgeLabels ?? {});
  if (requested.length === 0) return { report, value: structure };
  let labelSum = 0;
  for (const [key, want] of requested) {
    const [from, to] = key.split('->');
    const a = from === undefined ? undefined : shapeNamed(shapeOf, from.trim());
    const b = to === undefined ? undefined : shapeNamed(shapeOf, to.trim());
    if (!a || !b) continue;
    let best = 0;
    for (const arrow of arrows) if (arrow.from === a && arrow.to === b) best = Math.max(best, labelMatch(want, arrow.text));
    labelSum += best;
  }
  report.labels = labelSum / requested.length;
  return { report, value: (1 - EDGE_LABEL_SHARE) * structure + EDGE_LABEL_SHARE * report.labels };
}

/** Union-find root. */
function rootOf(parent: Map<string, string>, s: string): string {
  let r = s;
  while (parent.get(r) !== r) r = parent.get(r)!;
  return r;
}

/**
 * Structure unknown (extracted spec without edges): the arrows should join the matched entities into one piece,
 * with about one arrow per entity, and touch nothing else.
 */
function connectivityScore(entities: EntityReport[], arrows: { from: string; to: string }[], report: EdgeReport): number {
  const nodes = entities.flatMap((e) => (e.shape ? [e.shape] : []));
  const n = nodes.length;
  if (n < 2 || arrows.length === 0) {
    report.connectivity = 0;
    report.wrong = arrows.length;
    return 0;
  }
  const parent = new Map(nodes.map((s) => [s, s]));
  let components = n;
  let inside = 0;
  for (const a of arrows) {
    if (!parent.has(a.from) || !parent.has(a.to)) continue;
    inside++;
    const ra = rootOf(parent, a.from);
    const rb = rootOf(parent, a.to);
    if (ra !== rb) {
      parent.set(ra, rb);
      components--;
    }
  }
  report.wrong = arrows.length - inside;
  report.connectivity = (n - components) / (n - 1);
  const budget = 1.5 * (n - 1);
  return report.connectivity * Math.min(1, budget / arrows.length) * (inside / arrows.length);
}

// Specs extractSpec returned (it caches them per prompt), spelled out.
const spelledSpecs = new WeakMap<DiagramSpec, DiagramSpec>();

/** A spec read from the prompt names entities as the user typed them; the reward asks for the fuller names. */
export function spelledOut(spec: DiagramSpec): DiagramSpec {
  let spelled = spelledSpecs.get(spec);
  if (!spelled) {
    spelled = { ...spec, entities: spec.entities.map(spellOut), edges: spec.edges.map(([a, b]) => [spellOut(a), spellOut(b)] as [string, string]) };
    spelledSpecs.set(spec, spelled);
  }
  return spelled;
}

/** The spec the prompt-only reward measures against: the one read from the prompt, spelled out. */
export const promptSpec = (prompt: string): DiagramSpec => spelledOut(extractSpec(prompt));

/** The spec a score is measured against: the input's, else the one read from the prompt. */
function specOf(input: ScoreInput): { spec: DiagramSpec; specSource: 'input' | 'prompt' } {
  return input.spec ? { spec: input.spec, specSource: 'input' } : { spec: promptSpec(input.prompt), specSource: 'prompt' };
}

/** Everything the strong rubric measures, given the canvas a completion drew and its syntax shares. */
function measure(input: ScoreInput, canvas: Canvas | null, shares: { schema: number; accepted: number }, parses: number): Omit<StrongAnalysis, 'exec'> {
  const { spec, specSource } = specOf(input);
  const shapes = canvas ? canvas.shapeList() : [];
  const ents = entitiesPresent(spec, shapes);
  const edges = edgesCorrect(spec, specSource, ents.reports, canvas);
  const layout = input.readback ? input.readback.layout : canvas ? scoreCanvasLayout(canvas) : null;
  return {
    spec,
    specSource,
    shapes,
    entities: ents.reports,
    excessShapes: ents.excess,
    edges: edges.report,
    layout,
    values: {
      parses_json: parses,
      schema_valid: shares.schema,
      renderer_accepts: shares.accepted,
      entities_present: shapes.length ? ents.value : 0,
      edges_correct: shapes.length ? edges.value : 0,
      layout_quality: layout?.score ?? 0,
    },
  };
}

/** Runs a completion and measures everything the strong rubric scores; also what logs show about a rollout. */
export function analyzeStrong(input: ScoreInput): StrongAnalysis {
  const exec = executeCompletion(input.completion);
  return { exec, ...measure(input, exec.canvas, execShares(exec, input.readback), parseCredit(exec.parse.source)) };
}

/** What strong's and task's components read: one analysis per completion, shared by every component. */
export type StrongContext = StrongAnalysis;

export const strongRubric = defineRubric<StrongContext>({
  name: 'strong',
  description: 'The seed document\'s stronger reward: parse, schema, canvas, entities, edges and layout, with partial credit.',
  prepare: analyzeStrong,
  components: [
    {
      name: 'parses_json',
      weight: 0.25,
      description: 'JSON found: 1 bare, 0.8 in a ```json fence, 0.6 dug out of prose',
      fn: (c) => c.values.parses_json,
    },
    { name: 'schema_valid', weight: 0.2, description: 'share of actions that pass the action schema', fn: (c) => c.values.schema_valid },
    {
      name: 'renderer_accepts',
      weight: 0.2,
      description: 'share of actions the canvas applies (0 when nothing is drawn)',
      fn: (c) => c.values.renderer_accepts,
    },
    {
      name: 'entities_present',
      weight: 0.15,
      description: 'requested entities named by distinct shapes (fuller names only for full credit), less excess shapes',
      fn: (c) => c.values.entities_present,
    },
    {
      name: 'edges_correct',
      weight: 0.1,
      description: 'recall x precision of expected directed arrows between the matched shapes (reversed, missing and extra arrows cost)',
      fn: (c) => c.values.edges_correct,
    },
    {
      name: 'layout_quality',
      weight: 0.1,
      description: 'exp(-penalties): overlaps, crowding, text overflow, off-canvas, slivers, arrows through shapes or crossing',
      fn: (c) => c.values.layout_quality,
    },
  ],
  errors: (c) => c.exec.errors,
});
