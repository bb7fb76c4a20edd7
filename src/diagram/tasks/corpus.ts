// A deterministic corpus of (prompt, completion) pairs covering what models actually send: good diagrams with
// varied layouts and labels, and every way of being wrong (prose, markdown, truncation, invalid JSON, mutations).
// Used by the seed conformance test, the reward benchmark and agreement checks; the same seed gives the same corpus.
import { mulberry32 } from '../../random.ts';
import type { DiagramSpec } from './spec.ts';

export const CORPUS_CATEGORIES = [
  'valid',
  'prose_wrapped',
  'markdown_wrapped',
  'truncated',
  'invalid_json',
  'mutated',
  'no_json',
] as const;
export type CorpusCategory = (typeof CORPUS_CATEGORIES)[number];

export type LayoutKind = 'spaced' | 'touching' | 'overlapping' | 'stacked' | 'fractional';
export type LabelKind = 'matching' | 'partial' | 'offtopic' | 'empty';

export interface CorpusItem {
  id: string;
  category: CorpusCategory;
  /** What exactly was done: the mutation, wrapper or breakage. */
  variant: string;
  prompt: string;
  completion: string;
  /** The entities and edges the prompt asks for, when the prompt is about a diagram. */
  spec?: DiagramSpec;
  layout?: LayoutKind;
  labels?: LabelKind;
}

export interface CorpusOptions {
  n: number;
  seed: number;
  /**
   * Completions per prompt, as GRPO samples num_generations per prompt (default 1: every item has its own prompt).
   * The items of a group share their first item's prompt and spec object; the others draw the same entities anew
   * (shapes, layout, labels, arrows and category of their own).
   */
  perPrompt?: number;
}

// ---- randomness ------------------------------------------------------------------------------------------------------

function makeRng(seed: number) {
  const next = mulberry32(seed);
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    chance: (p: number) => next() < p,
    shuffle<T>(xs: readonly T[]): T[] {
      const out = [...xs];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
  };
}
type Rng = ReturnType<typeof makeRng>;

// ---- prompts -----------------------------------------------------------------------------------------------------

const ENTITIES = [
  'Client', 'API Gateway', 'Auth Service', 'Database', 'Cache', 'Queue', 'Worker', 'Load Balancer', 'Web Server',
  'User', 'Login', 'Dashboard', 'Token', 'Payment', 'Cart', 'Checkout', 'Fraud Check', 'Receipt', 'Commit', 'Tests',
  'Build', 'Deploy', 'Documents', 'Embeddings', 'Vector DB', 'Retriever', 'LLM', 'Scheduler', 'Logger', 'Metrics',
  'Alerts', 'Storage', 'CDN', 'Browser', 'Frontend', 'Backend', 'Notification', 'Email', 'Inventory', 'Shipping',
  'Order', 'Search Index', 'Crawler', 'Parser', 'Compiler', 'Start', 'End', 'Approve', 'Reject', 'Review', 'Café',
  'Données', 'Kubernetes', 'S3 Bucket', 'ML Model', 'Feature Store', 'DB', 'UI', 'True', 'None',
] as const;

const KINDS = ['data pipeline', 'login flow', 'checkout flow', 'CI pipeline', 'system architecture', 'decision tree', 'RAG system', 'workflow'];

function listPhrase(names: string[]): string {
  if (names.length === 1) return names[0];
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** Prompts in the styles users write; some carry no 4+ letter word at all (the seed then gives 0.5 semantics). */
function makePrompt(rng: Rng, names: string[]): string {
  const kind = rng.pick(KINDS);
  switch (rng.int(0, 7)) {
    case 0:
      return `Draw a ${kind} with ${listPhrase(names)}.`;
    case 1:
      return `Draw a ${kind}: ${names.join(' -> ')}.`;
    case 2:
      return `Create a diagram showing ${names[0]} sending data to ${listPhrase(names.slice(1))}.`;
    case 3:
      return `Sketch how ${names.join(' then ')} fit together.`;
    case 4:
      return rng.pick(['Do it.', 'A to B.', 'Go!', 'x y z', '', 'DB -> UI']);
    case 5:
      // Words that only Python's str() of non-string labels produces: True, None, nan, e-05.
      return `Draw a check at threshold 1e-05 that returns true, false or none for ${listPhrase(names)}.`;
    case 6:
      return `${names.map((n) => n.toLowerCase()).join(', ')}`;
    default:
      return `Please draw a ${kind} from ${names[0]} to ${names[names.length - 1]} with ${listPhrase(names.slice(1, -1).length ? names.slice(1, -1) : names)}.`;
  }
}

// ---- diagrams ----------------------------------------------------------------------------------------------------

type Raw = { raw: string };
type JsonLike = string | number | boolean | null | Raw | JsonLike[] | { [k: string]: JsonLike };

interface Plan {
  names: string[];
  prompt: string;
  spec: DiagramSpec;
  actions: { [k: string]: JsonLike }[];
  layout: LayoutKind;
  labels: LabelKind;
}

const SHAPES = ['rectangle', 'ellipse', 'diamond', 'text'];

function slug(name: string, i: number): string {
  const s = name.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
  return s || `n${i}`;
}

function boxes(rng: Rng, n: number, layout: LayoutKind): { x: number; y: number; w: number; h: number }[] {
  const w = rng.int(60, 220);
  const h = rng.int(40, 120);
  const cols = rng.int(1, 4);
  const gap = layout === 'touching' ? 0 : rng.int(10, 90);
  return Array.from({ length: n }, (_, i) => {
    const col = i % cols;
    const row = Math.floor(i / cols);
    switch (layout) {
      case 'stacked':
        return { x: 100, y: 100, w, h };
      case 'overlapping':
        return { x: rng.int(0, 150), y: rng.int(0, 100), w, h };
      case 'fractional': {
        // Sums like 0.1 + 0.2 decide "touching" in float arithmetic, exactly as Python computes it.
        const fw = rng.pick([0.1, 0.2, 0.3, 100.5, 33.333333333333336]);
        return { x: Number((col * (fw + rng.pick([0, 0.1, 1e-9]))).toFixed(rng.int(0, 17))), y: row * 0.7, w: fw, h: 0.7 };
      }
      default:
        return { x: col * (w + gap) + 20, y: row * (h + gap) + 20, w, h };
    }
  });
}

/** A drawing of a new prompt, or, given a group's first plan, another drawing of its entities for its prompt. */
function makePlan(rng: Rng, lead?: Plan): Plan {
  const count = lead ? lead.names.length : rng.int(2, 12);
  const names = lead ? lead.names : rng.shuffle(ENTITIES).slice(0, count);
  const prompt = lead ? lead.prompt : makePrompt(rng, names);
  const layout = rng.pick<LayoutKind>(['spaced', 'spaced', 'spaced', 'touching', 'overlapping', 'stacked', 'fractional']);
  const labels = rng.pick<LabelKind>(['matching', 'matching', 'matching', 'partial', 'offtopic', 'empty']);
  const ids = names.map(slug);
  const seen = new Set<string>();
  ids.forEach((id, i) => {
    if (seen.has(id)) ids[i] = `${id}_${i}`;
    seen.add(ids[i]);
  });
  const others = ENTITIES.filter((e) => !names.includes(e));
  const labelFor = (name: string, i: number): string | undefined => {
    switch (labels) {
      case 'matching':
        return rng.chance(0.2) ? name.toLowerCase() : name;
      case 'partial':
        return i % 2 === 0 ? name : rng.pick(['', 'Step', name.split(' ')[0]]);
      case 'offtopic':
        return rng.pick(others);
      case 'empty':
        return rng.chance(0.5) ? undefined : rng.pick(['', ' ', '\t\n']);
    }
  };
  const geometry = boxes(rng, count, layout);
  const actions: { [k: string]: JsonLike }[] = names.map((name, i) => {
    const a: { [k: string]: JsonLike } = { type: 'create_shape', id: ids[i], shape: rng.pick(SHAPES), ...geometry[i] };
    const text = labelFor(name, i);
    if (text !== undefined) a.text = text;
    return a;
  });
  const edges: [string, string][] = [];
  const arrowStyle = rng.int(0, 3);
  for (let i = 1; i < count; i++) {
    const from = arrowStyle === 1 ? 0 : arrowStyle === 2 ? rng.int(0, i - 1) : i - 1;
    if (arrowStyle === 3 && rng.chance(0.5)) continue;
    edges.push([names[from], names[i]]);
    const arrow: { [k: string]: JsonLike } = { type: 'connect', from: ids[from], to: ids[i] };
    if (rng.chance(0.2)) arrow.text = rng.pick(['calls', 'writes', 'then', 'yes', 'no']);
    actions.push(arrow);
  }
  return { names, prompt, spec: lead ? lead.spec : { entities: names, edges }, actions, layout, labels };
}

// ---- serialization -----------------------------------------------------------------------------------------------

const RAW_MARK = '\u0000raw:';

/** JSON text with raw tokens (NaN, 1.0, 1e-05, huge ints) spliced in where JSON.stringify cannot write them. */
function serialize(rng: Rng, value: JsonLike): string {
  const raws: string[] = [];
  const prepare = (v: JsonLike): unknown => {
    if (v !== null && typeof v === 'object' && 'raw' in v && typeof v.raw === 'string' && Object.keys(v).length === 1) {
      raws.push(v.raw);
      return `${RAW_MARK}${raws.length - 1}`;
    }
    if (Array.isArray(v)) return v.map(prepare);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, prepare(x)]));
    return v;
  };
  const indent = rng.pick([undefined, undefined, 2, 4, '\t']);
  let text = JSON.stringify(prepare(value), null, indent);
  if (rng.chance(0.15)) text = text.replace(/":(?=\S)/g, '": ').replace(/,(?=")/g, ', ');
  return text.replace(/"\\u0000raw:(\d+)"/g, (_, i: string) => raws[Number(i)]);
}

// ---- broken variants ---------------------------------------------------------------------------------------------

const PROSE_BEFORE = [
  "Here's the diagram you asked for:\n\n",
  'Sure! Below is the JSON.\n',
  'I will create the shapes first, then connect them.\n',
  'Using {curly braces} as requested:\n',
  '',
];
const PROSE_AFTER = ['\n\nLet me know if you want changes.', '\nHope this helps!', '\nNote: ids are stable }', '', ' :)'];

function proseWrap(rng: Rng, json: string): [string, string] {
  const before = rng.pick(PROSE_BEFORE);
  const after = rng.pick(PROSE_AFTER);
  return [before + json + after, `prose:${PROSE_BEFORE.indexOf(before)}:${PROSE_AFTER.indexOf(after)}`];
}

function markdownWrap(rng: Rng, json: string): [string, string] {
  switch (rng.int(0, 4)) {
    case 0:
      return ['```json\n' + json + '\n```', 'fenced'];
    case 1:
      return ['Here you go:\n```json\n' + json + '\n```\nDone.', 'fenced+prose'];
    case 2:
      return ['```\n' + json + '\n```', 'fenced-untagged'];
    case 3:
      return ['First try:\n```json\n{"actions": []}\n```\nBetter:\n```json\n' + json + '\n```', 'two-blocks'];
    default:
      return ['**Diagram**\n\n```JSON\n' + json + '\n```', 'fenced-upper'];
  }
}

function breakJson(rng: Rng, json: string): [string, string] {
  switch (rng.int(0, 8)) {
    case 0:
      return [json.replace(/"/g, "'"), 'single-quotes'];
    case 1:
      return [json.replace(/\}(\s*)\]/, '},$1]'), 'trailing-comma'];
    case 2:
      return [json.replace(/,/, ''), 'missing-comma'];
    case 3:
      return [json.replace(/"(type|id|actions)"/g, '$1'), 'unquoted-keys'];
    case 4:
      return ['// diagram\n' + json, 'comment'];
    case 5:
      return [json.replace(/"/g, '\u201c'), 'smart-quotes'];
    case 6:
      return [json + json, 'doubled'];
    case 7:
      return [json.replace(/\d+/, (d) => d + 'px'), 'unit-suffix'];
    default:
      return [json.replace(/"create_shape"/, "'create_shape'").replace(/(\d+)/, 'True'), 'python-literals'];
  }
}

// ---- mutations ---------------------------------------------------------------------------------------------------

type Action = { [k: string]: JsonLike };
type Doc = JsonLike;
type Mutation = (rng: Rng, actions: Action[], doc: { [k: string]: JsonLike }) => Doc | void;

const isAction = (a: unknown): a is Action => typeof a === 'object' && a !== null && !Array.isArray(a);
const creates = (actions: Action[]) => actions.filter((a) => isAction(a) && a.type === 'create_shape');
const connects = (actions: Action[]) => actions.filter((a) => isAction(a) && a.type === 'connect');

const TEXT_VALUES: JsonLike[] = [
  null, true, false, 42, -7, 0, { raw: '-0' }, { raw: '1.0' }, 1.5, { raw: '1e-05' }, { raw: '1E-7' }, { raw: '0.0001' },
  { raw: '1e16' }, { raw: '1e400' }, { raw: '12345678901234567890123' }, { raw: '123456789.125' }, { raw: 'NaN' },
  { raw: 'Infinity' }, { raw: '-Infinity' }, ['alpha', 'Beta'], [], {}, { b: 'Gamma', '2': 'two', a: [1, null, true] },
  ["it's", 'say "hi"', 'back\\slash', 'new\nline', 'tab\there', 'nul\u0000x', 'del\u007fx'],
  ['caf\u00e9', '\u00a0nbsp', '\u200bzero', '\ud83d\ude00emoji', '\u0085next', '\u2028sep', '\ud800lone', 'K\u212aelvin'],
  { 'key with "quotes"': "and 'both'" }, [{ raw: '1e-05' }, { raw: 'NaN' }, 2.5e-7],
];

const UNICODE_LABELS = [
  'Café', '数据库', 'Пользователь', 'مستخدم', '🚀 Deploy', 'İstanbul', '\u212aelvin', 'Straße', 'ﬁle', 'e\u0301vent',
  '\u00a0', '\u2003', '\u001c', '\u0085', '\ufeff', '\u200b', '\u3000Queue', 'Da\u0000ta', 'ΣΊΣΥΦΟΣ', 'Ⅻ Twelve',
];

const MUTATIONS: Record<string, Mutation> = {
  number_as_string: (rng, actions) => {
    const a = rng.pick(creates(actions));
    const k = rng.pick(['x', 'y', 'w', 'h']);
    a[k] = String(a[k]);
  },
  bool_as_number: (rng, actions) => {
    const a = rng.pick(creates(actions));
    a[rng.pick(['x', 'y', 'w', 'h'])] = rng.chance(0.7);
  },
  nan_infinity: (rng, actions) => {
    const a = rng.pick(creates(actions));
    a[rng.pick(['x', 'y', 'w', 'h', 'text', 'text'])] = { raw: rng.pick(['NaN', 'Infinity', '-Infinity']) };
  },
  missing_field: (rng, actions) => {
    const a = rng.pick(actions.filter(isAction));
    const keys = Object.keys(a);
    delete a[rng.pick(keys)];
  },
  unknown_shape: (rng, actions) => {
    rng.pick(creates(actions)).shape = rng.pick(['circle', 'hexagon', 'Rectangle', 'arrow', '', 7]);
  },
  unknown_action: (rng, actions) => {
    rng.pick(actions.filter(isAction)).type = rng.pick(['update_shape', 'delete_shape', 'move', 'create', '', null, 3]);
  },
  duplicate_id: (rng, actions) => {
    const cs = creates(actions);
    const a = cs[rng.int(1, cs.length - 1)];
    a.id = cs[0].id;
  },
  dangling_arrow: (rng, actions) => {
    actions.push({ type: 'connect', from: String(rng.pick(creates(actions)).id), to: 'ghost' });
  },
  connect_before_create: (_rng, actions) => {
    const arrow = connects(actions)[0] ?? { type: 'connect', from: creates(actions)[0].id, to: creates(actions)[1].id };
    actions.unshift({ ...arrow });
  },
  self_arrow: (rng, actions) => {
    const id = rng.pick(creates(actions)).id;
    actions.push({ type: 'connect', from: id, to: id });
  },
  bad_size: (rng, actions) => {
    const a = rng.pick(creates(actions));
    a[rng.pick(['w', 'h'])] = rng.pick<JsonLike>([0, -5, 1001, 1000, 1e6, 0.0001, { raw: '-0.0' }, { raw: '1e-320' }, { raw: '1000.0000000000001' }]);
  },
  extreme_position: (rng, actions) => {
    const a = rng.pick(creates(actions));
    a[rng.pick(['x', 'y'])] = rng.pick<JsonLike>([{ raw: '1e308' }, { raw: '-1.7976931348623157e308' }, { raw: '5e-324' }, -1e9, 1e15]);
  },
  non_string_text: (rng, actions) => {
    const target = rng.chance(0.8) ? rng.pick(creates(actions)) : rng.pick(actions.filter(isAction));
    target.text = rng.pick(TEXT_VALUES);
  },
  unicode_labels: (rng, actions) => {
    for (const a of creates(actions)) if (rng.chance(0.6)) a.text = rng.pick(UNICODE_LABELS);
  },
  empty_actions: (_rng, _actions, doc) => {
    doc.actions = [];
  },
  too_many_actions: (rng, actions) => {
    const target = rng.pick([40, 41, 45, 60]);
    for (let i = actions.length; i < target; i++) {
      actions.push({ type: 'create_shape', id: `extra${i}`, shape: 'text', x: i * 50, y: 900, w: 40, h: 20, text: `n${i}` });
    }
  },
  non_object_action: (rng, actions) => {
    actions.splice(rng.int(0, actions.length), 0, rng.pick<JsonLike>(['create_shape', 42, null, [], [{ type: 'connect' }], true]) as Action);
  },
  top_level_array: (_rng, actions) => actions,
  top_level_scalar: (rng) => rng.pick<JsonLike>(['actions', 42, null, true, { raw: 'NaN' }]),
  actions_not_list: (rng, actions, doc) => {
    delete doc.actions;
    const choice = rng.int(0, 2);
    if (choice === 0) doc.actions = actions[0];
    else if (choice === 1) doc.actions = 'create shapes';
    else doc.action = actions;
  },
  extra_fields: (rng, actions, doc) => {
    for (const a of actions.filter(isAction)) if (rng.chance(0.5)) a[rng.pick(['color', 'note', 'z'])] = rng.pick<JsonLike>(['red', 1, null, { deep: [1, 2] }]);
    doc.reasoning = 'I placed the shapes left to right.';
  },
  huge_int: (rng, actions) => {
    const a = rng.pick(creates(actions));
    const digits = rng.pick([400, 4300, 4301, 30]);
    const key = rng.pick(['x', 'text', 'z']);
    a[key] = { raw: '9'.repeat(digits) };
  },
  deep_nesting: (rng, actions) => {
    // Written compactly: pretty-printing would indent each level and make a megabyte of spaces.
    const depth = rng.pick([3, 50, 985, 1200]);
    const leaf = rng.pick(['"deep"', '1']);
    rng.pick(creates(actions))[rng.pick(['text', 'meta'])] = { raw: '['.repeat(depth) + leaf + ']'.repeat(depth) };
  },
  duplicate_keys: (rng, actions) => {
    const a = rng.pick(creates(actions));
    const key = rng.pick(['x', 'text', 'id']);
    // Both JSON.parse and Python keep the last value; Python keeps the first position.
    a[key] = { raw: `"bad", ${JSON.stringify(key)}: ${JSON.stringify(a[key] ?? 'Label')}` };
  },
  float_literals: (rng, actions) => {
    for (const a of creates(actions)) for (const k of ['x', 'y', 'w', 'h']) if (rng.chance(0.3) && typeof a[k] === 'number') a[k] = { raw: `${a[k]}.0` };
  },
  bom_prefix: () => undefined,
  nonjson_whitespace: () => undefined,
  escaped_strings: (rng, actions) => {
    for (const a of creates(actions)) {
      if (typeof a.text === 'string' && rng.chance(0.5)) {
        // Code units, so that astral characters become escaped surrogate pairs.
        const escaped = a.text.split('').map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
        a.text = { raw: `"${escaped}"` };
      }
    }
  },
};

export const MUTATION_NAMES = Object.keys(MUTATIONS);

function mutated(rng: Rng, plan: Plan): [string, string] {
  const names = rng.chance(0.2) ? [rng.pick(MUTATION_NAMES), rng.pick(MUTATION_NAMES)] : [rng.pick(MUTATION_NAMES)];
  const actions = structuredClone(plan.actions);
  let doc: Doc = { actions };
  for (const name of names) {
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc) || 'raw' in doc) break;
    const docObj = doc as { [k: string]: JsonLike };
    if (!Array.isArray(docObj.actions) || creates(docObj.actions as Action[]).length < 2) break;
    const replaced = MUTATIONS[name](rng, docObj.actions as Action[], docObj);
    if (replaced !== undefined) doc = replaced;
  }
  let text = serialize(rng, doc);
  if (names.includes('bom_prefix')) text = '\ufeff' + text;
  if (names.includes('nonjson_whitespace')) text = rng.pick(['\u00a0', '\u3000', '\u200b', '\f']) + text + rng.pick(['\u00a0', '\n', '\v']);
  return [text, names.join('+')];
}

const NO_JSON = ['', '   ', 'I cannot draw that.', 'Sure, here is a diagram of the system.', '{}', '[]', '{"actions": null}', '}{', 'null', '{', '"{\\"actions\\": []}"'];

// ---- the corpus --------------------------------------------------------------------------------------------------

const CATEGORY_WEIGHTS: [CorpusCategory, number][] = [
  ['valid', 26],
  ['prose_wrapped', 8],
  ['markdown_wrapped', 8],
  ['truncated', 10],
  ['invalid_json', 8],
  ['mutated', 36],
  ['no_json', 4],
];

function pickCategory(rng: Rng): CorpusCategory {
  const total = CATEGORY_WEIGHTS.reduce((s, [, w]) => s + w, 0);
  let r = rng.next() * total;
  for (const [c, w] of CATEGORY_WEIGHTS) {
    if ((r -= w) < 0) return c;
  }
  return 'valid';
}

/** `n` items; the same `seed` always gives the same items in the same order. */
export function generateCorpus({ n, seed, perPrompt = 1 }: CorpusOptions): CorpusItem[] {
  if (!Number.isInteger(perPrompt) || perPrompt < 1) throw new Error(`generateCorpus: perPrompt must be a positive integer, got ${perPrompt}`);
  const rng = makeRng(seed);
  const items: CorpusItem[] = [];
  let lead: Plan | undefined;
  for (let i = 0; i < n; i++) {
    const category = pickCategory(rng);
    const plan = makePlan(rng, i % perPrompt === 0 ? undefined : lead);
    if (i % perPrompt === 0) lead = plan;
    const json = serialize(rng, { actions: plan.actions });
    let completion: string;
    let variant: string;
    switch (category) {
      case 'valid':
        [completion, variant] = [json, `${plan.layout}/${plan.labels}`];
        break;
      case 'prose_wrapped':
        [completion, variant] = proseWrap(rng, json);
        break;
      case 'markdown_wrapped':
        [completion, variant] = markdownWrap(rng, json);
        break;
      case 'truncated': {
        const [full, how] = rng.chance(0.3) ? markdownWrap(rng, json) : [json, 'bare'];
        const cut = rng.int(0, full.length - 1);
        [completion, variant] = [full.slice(0, cut), `${how}@${cut}/${full.length}`];
        break;
      }
      case 'invalid_json':
        [completion, variant] = breakJson(rng, json);
        break;
      case 'mutated':
        [completion, variant] = mutated(rng, plan);
        break;
      case 'no_json':
        [completion, variant] = [rng.pick(NO_JSON), 'no-json'];
        break;
    }
    items.push({
      id: `${seed}-${i}`,
      category,
      variant,
      prompt: plan.prompt,
      completion,
      spec: plan.spec,
      layout: plan.layout,
      labels: plan.labels,
    });
  }
  return items;
}
