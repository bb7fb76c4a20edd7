// Structured output for the student: while it samples, tokens that cannot continue a valid answer are masked out, as
// vLLM's guided decoding does with a JSON Schema. The guide is a byte automaton of the seed's action language in its
// compact form, `{"actions":[{"type":"create_shape","say":...,"id":...,"shape":...,"x":...,"y":...,"w":...,"h":...,"text":...},
// {"type":"connect","from":...,"to":...,"text":...}]}`, keys in the schema's order (actions.ts; an arrow may name `to`
// first, as the teacher's walked answers do), and it also knows
// the canvas: a new id is not a duplicate, an arrow's ends name shapes created earlier in the same answer and differ.
// Written here rather than taken from a grammar library (xgrammar's web build) because a JSON Schema cannot say that
// `from` must name an earlier `id`, and dangling or self-referencing arrows are where the student fails most.
import { DEFAULT_MAX_ACTIONS, MAX_SIDE, SHAPE_KINDS } from './actions.ts';
import type { TokenGuide } from '../../model/sampler.ts';
import type { Tokenizer } from '../../model/tokenizer.ts';

/** Longest id or label, in bytes: ends a run-on name (a looping student) well before the token limit. */
export const MAX_STRING_BYTES = 64;
/** Longest `say`, in bytes as written (escapes included): the request's words between two names. */
export const MAX_SAY_BYTES = 256;
/** What may follow a backslash in a `say`: the escapes JSON.stringify writes for text (\u escapes are left out). */
const SAY_ESCAPES = new Set([...'"\\/bfnrt'].map((c) => c.charCodeAt(0)));
/** Digits of a coordinate, sign apart. */
const MAX_COORD_DIGITS = 5;

const enum Kind { Alt, Str, Int, Done }
/** An arrow's ends: the first it names (`from`, or `to` in a target-first arrow) is any shape made so far, the second
 *  any other. */
const enum StrMode { NewId, Label, FirstEnd, SecondEnd, Say }
const enum IntMode { Coord, Side }
const enum Guard { None, Connect, More }

interface Alt { bytes: Uint8Array; next: number; guard: Guard }
type GrammarNode =
  | { kind: Kind.Alt; alts: Alt[]; countsAction: boolean }
  | { kind: Kind.Str; mode: StrMode; next: number }
  | { kind: Kind.Int; mode: IntMode; next: number }
  | { kind: Kind.Done };

const QUOTE = 0x22, BACKSLASH = 0x5c, MINUS = 0x2d, ZERO = 0x30, NINE = 0x39;
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** The answer's grammar as a small graph: literal alternatives, strings and integers, each naming what follows. */
function buildGrammar(): { nodes: GrammarNode[]; start: number; done: number } {
  const nodes: GrammarNode[] = [];
  const add = (n: GrammarNode): number => nodes.push(n) - 1;
  const alt = (alts: [string, number, Guard?][], countsAction = false): GrammarNode =>
    ({ kind: Kind.Alt, alts: alts.map(([s, next, guard]) => ({ bytes: utf8(s), next, guard: guard ?? Guard.None })), countsAction });
  // Built back to front so that each node can name the one after it; `after` is patched once `act` exists.
  const done = add({ kind: Kind.Done });
  const after = add(alt([]));
  const closeObject = add(alt([['}', after]]));
  const label = add({ kind: Kind.Str, mode: StrMode.Label, next: closeObject });
  const optionalText = add(alt([[',"text":', label], ['}', after]]));
  const h = add({ kind: Kind.Int, mode: IntMode.Side, next: optionalText });
  const hKey = add(alt([[',"h":', h]]));
  const w = add({ kind: Kind.Int, mode: IntMode.Side, next: hKey });
  const wKey = add(alt([[',"w":', w]]));
  const y = add({ kind: Kind.Int, mode: IntMode.Coord, next: wKey });
  const yKey = add(alt([[',"y":', y]]));
  const x = add({ kind: Kind.Int, mode: IntMode.Coord, next: yKey });
  const shape = add(alt(SHAPE_KINDS.map((k): [string, number] => [`,"shape":"${k}","x":`, x])));
  const id = add({ kind: Kind.Str, mode: StrMode.NewId, next: shape });
  const idKey = add(alt([[',"id":', id]]));
  const say = add({ kind: Kind.Str, mode: StrMode.Say, next: idKey });
  const secondEnd = add({ kind: Kind.Str, mode: StrMode.SecondEnd, next: optionalText });
  const from = add({ kind: Kind.Str, mode: StrMode.FirstEnd, next: add(alt([[',"to":', secondEnd]])) });
  const to = add({ kind: Kind.Str, mode: StrMode.FirstEnd, next: add(alt([[',"from":', secondEnd]])) });
  const act = add(
    alt([
      ['{"type":"create_shape","id":', id],
      ['{"type":"create_shape","say":', say],
      ['{"type":"connect","from":', from, Guard.Connect],
      ['{"type":"connect","to":', to, Guard.Connect],
    ]),
  );
  nodes[after] = alt([[',', act, Guard.More], [']}', done]], true);
  const start = add(alt([['{"actions":[', act]]));
  return { nodes, start, done };
}

const GRAMMAR = buildGrammar();

/** Where an answer stands: the automaton's node and its progress inside it, plus what the canvas holds so far. */
class GuideState {
  node = GRAMMAR.start;
  /** Alt: bitmask of alternatives still matching, and bytes matched. */
  alive = 1;
  matched = 0;
  /** Str: whether the opening quote is read, and the bytes since (one char per byte). */
  open = false;
  text = '';
  /** Str: continuation bytes the current UTF-8 character still needs. */
  pending = 0;
  /** Str (a say): a backslash was read, its escape's letter comes next. */
  escaped = false;
  /** Int: digits read, their value, a leading minus. */
  digits = 0;
  value = 0;
  negative = false;
  /** Canvas: ids created so far (replaced, never mutated, so that copies can share it), the end the arrow named
   *  first, actions done. */
  ids: readonly string[] = [];
  end = '';
  actions = 0;

  constructor(readonly maxActions: number) {}

  copyFrom(o: GuideState): void {
    this.node = o.node; this.alive = o.alive; this.matched = o.matched; this.open = o.open; this.text = o.text; this.pending = o.pending;
    this.escaped = o.escaped; this.digits = o.digits; this.value = o.value; this.negative = o.negative; this.ids = o.ids; this.end = o.end;
    this.actions = o.actions;
  }

  get done(): boolean {
    return this.node === GRAMMAR.done;
  }

  /** Bytes an open id, label or say may still take, between characters; -1 elsewhere (and inside a UTF-8 character
   *  or an escape). */
  stringRoom(): number {
    const n = GRAMMAR.nodes[this.node];
    if (n.kind !== Kind.Str || !this.open || this.pending !== 0) return -1;
    if (n.mode === StrMode.Say) return this.escaped ? -1 : MAX_SAY_BYTES - this.text.length;
    return n.mode === StrMode.NewId || n.mode === StrMode.Label ? MAX_STRING_BYTES - this.text.length : -1;
  }

  /** Reads one byte; false (and the state is then undefined) if no valid answer continues with it. */
  push(b: number): boolean {
    for (;;) {
      const n = GRAMMAR.nodes[this.node];
      switch (n.kind) {
        case Kind.Done:
          return false;
        case Kind.Alt: {
          let alive = 0;
          for (let i = 0; i < n.alts.length; i++) if ((this.alive >> i) & 1 && n.alts[i].bytes[this.matched] === b) alive |= 1 << i;
          if (!alive) return false;
          this.matched++;
          // The alternatives of a node are prefix-free, so one that is complete is the only one left.
          for (let i = 0; i < n.alts.length; i++) {
            if ((alive >> i) & 1 && n.alts[i].bytes.length === this.matched) { this.enter(n.alts[i].next); return true; }
          }
          this.alive = alive;
          return true;
        }
        case Kind.Str:
          return this.pushString(n.mode, n.next, b);
        case Kind.Int: {
          const digit = b >= ZERO && b <= NINE;
          if (digit) return this.pushDigit(n.mode, b - ZERO);
          if (n.mode === IntMode.Coord && b === MINUS && this.digits === 0 && !this.negative) { this.negative = true; return true; }
          if (this.digits === 0) return false;
          this.enter(n.next);
          continue; // the byte that ended the number starts what follows it
        }
      }
    }
  }

  private pushDigit(mode: IntMode, d: number): boolean {
    if (this.digits === 0) {
      if (mode === IntMode.Side && d === 0) return false;
      this.digits = 1;
      this.value = d;
      return true;
    }
    if (this.value === 0) return false; // JSON has no leading zeros
    const value = this.value * 10 + d;
    if (mode === IntMode.Side ? value > MAX_SIDE : this.digits >= MAX_COORD_DIGITS) return false;
    this.digits++;
    this.value = value;
    return true;
  }

  private pushString(mode: StrMode, next: number, b: number): boolean {
    if (!this.open) {
      if (b !== QUOTE) return false;
      this.open = true;
      return true;
    }
    const s = this.text;
    if (mode === StrMode.Say) return this.pushSay(next, b);
    if (b === QUOTE && this.pending === 0) return this.closeString(mode, next, s);
    // Escapes are left out: ids and labels copied from a prompt do not need them, and a backslash is how a
    // looping student's strings often go wrong.
    if (b === BACKSLASH || b < 0x20 || s.length >= MAX_STRING_BYTES) return false;
    // A string holds whole UTF-8 characters, so that no label decodes to U+FFFD; a character must fit under the limit.
    if (this.pending > 0) {
      if ((b & 0xc0) !== 0x80) return false;
      this.pending--;
    } else if (b >= 0x80) {
      const need = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
      if (need < 0 || s.length + 1 + need > MAX_STRING_BYTES) return false;
      this.pending = need;
    }
    const t = s + String.fromCharCode(b);
    // A new id at the byte limit must close, so it may not reach the limit as a duplicate: that would be a dead end.
    if (mode === StrMode.NewId && t.length === MAX_STRING_BYTES && this.ids.includes(t)) return false;
    if (mode === StrMode.FirstEnd || mode === StrMode.SecondEnd) {
      let ok = false;
      for (const id of this.ids) if (id.startsWith(t) && !(mode === StrMode.SecondEnd && id === this.end)) { ok = true; break; }
      if (!ok) return false;
    }
    this.text = t;
    return true;
  }

  /** A say is request text as JSON writes it: its escapes are allowed, any length up to MAX_SAY_BYTES, empty too. */
  private pushSay(next: number, b: number): boolean {
    if (this.escaped) {
      if (!SAY_ESCAPES.has(b)) return false;
      this.escaped = false;
    } else if (this.pending === 0 && b === QUOTE) {
      this.enter(next);
      return true;
    } else if (b < 0x20 || this.text.length >= MAX_SAY_BYTES - (b === BACKSLASH ? 1 : 0)) return false;
    else if (this.pending > 0) {
      if ((b & 0xc0) !== 0x80) return false;
      this.pending--;
    } else if (b === BACKSLASH) this.escaped = true;
    else if (b >= 0x80) {
      const need = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
      if (need < 0 || this.text.length + 1 + need > MAX_SAY_BYTES) return false;
      this.pending = need;
    }
    this.text += String.fromCharCode(b);
    return true;
  }

  private closeString(mode: StrMode, next: number, s: string): boolean {
    switch (mode) {
      case StrMode.NewId:
        if (s.length === 0 || this.ids.includes(s)) return false;
        this.ids = [...this.ids, s];
        break;
      case StrMode.Label:
        if (s.length === 0) return false;
        break;
      case StrMode.FirstEnd:
        if (!this.ids.includes(s)) return false;
        this.end = s;
        break;
      case StrMode.SecondEnd:
        if (s === this.end || !this.ids.includes(s)) return false;
        break;
    }
    this.enter(next);
    return true;
  }

  private enter(next: number): void {
    const n = GRAMMAR.nodes[next];
    this.node = next;
    if (n.kind === Kind.Alt) {
      if (n.countsAction) this.actions++;
      let alive = 0;
      n.alts.forEach((a, i) => {
        const ok = a.guard === Guard.None ||
          (a.guard === Guard.Connect && this.ids.length >= 2) ||
          (a.guard === Guard.More && this.actions < this.maxActions);
        if (ok) alive |= 1 << i;
      });
      this.alive = alive;
      this.matched = 0;
    } else if (n.kind === Kind.Str) {
      this.open = false;
      this.text = '';
      this.pending = 0;
      this.escaped = false;
    } else if (n.kind === Kind.Int) {
      this.digits = 0;
      this.value = 0;
      this.negative = false;
    }
  }
}

/** What the guide needs to know about a tokenizer's vocabulary, worked out once and shared by every sequence. */
export class GuideVocabulary {
  readonly size: number;
  readonly endId: number;
  /** Bytes of each ordinary token; undefined for special tokens. */
  readonly bytes: (Uint8Array | undefined)[];
  /** Ordinary tokens by first byte. */
  readonly byFirstByte: number[][];
  /** Tokens of printable ASCII other than quote and backslash: whatever a string holds, they may follow. */
  readonly plain: Uint8Array;
  /** Ordinary tokens that are not plain. */
  readonly notPlain: Int32Array;

  constructor(tok: Tokenizer) {
    this.size = tok.vocabSize;
    this.endId = tok.endId;
    this.bytes = Array.from({ length: this.size }, (_, id) => tok.tokenBytes(id));
    this.byFirstByte = Array.from({ length: 256 }, () => [] as number[]);
    this.plain = new Uint8Array(this.size);
    const notPlain: number[] = [];
    this.bytes.forEach((bytes, id) => {
      if (!bytes || bytes.length === 0) return;
      this.byFirstByte[bytes[0]].push(id);
      if (bytes.every((b) => b >= 0x20 && b < 0x80 && b !== QUOTE && b !== BACKSLASH)) this.plain[id] = 1;
      else notPlain.push(id);
    });
    this.notPlain = Int32Array.from(notPlain);
  }
}

/** One sequence's guide: masks what cannot come next and follows the tokens chosen. */
export class ActionGuide implements TokenGuide {
  private readonly state: GuideState;
  private readonly trial: GuideState;
  private readonly allowed: Uint8Array;

  constructor(private readonly vocab: GuideVocabulary, opts: { maxActions?: number } = {}) {
    const max = opts.maxActions ?? DEFAULT_MAX_ACTIONS;
    if (!Number.isInteger(max) || max < 1) throw new Error(`maxActions must be a positive integer, got ${max}`);
    this.state = new GuideState(max);
    this.trial = new GuideState(max);
    this.allowed = new Uint8Array(vocab.size);
  }

  /** Whether the answer so far is complete (only the end token may follow). */
  get done(): boolean {
    return this.state.done;
  }

  /** One byte per token, 1 where the token may come next (the guide's own array, rewritten by each call). */
  allowedTokens(): Uint8Array {
    const v = this.vocab, out = this.allowed;
    out.fill(0);
    if (this.state.done) {
      out[v.endId] = 1;
      return out;
    }
    const room = this.state.stringRoom();
    if (room > 0) {
      // Inside an id or label nearly every token fits: a plain one that stays under the limit needs no trial.
      for (let id = 0; id < v.size; id++) {
        if (!v.plain[id]) continue;
        const n = v.bytes[id]!.length;
        if (n < room || (n === room && this.fits(v.bytes[id]!))) out[id] = 1;
      }
      for (const id of v.notPlain) if (this.fits(v.bytes[id]!)) out[id] = 1;
      return out;
    }
    for (let b = 0; b < 256; b++) {
      const bucket = v.byFirstByte[b];
      if (bucket.length === 0) continue;
      this.trial.copyFrom(this.state);
      if (!this.trial.push(b)) continue;
      for (const id of bucket) if (this.fits(v.bytes[id]!)) out[id] = 1;
    }
    return out;
  }

  mask(logits: Float32Array): void {
    const allowed = this.allowedTokens();
    let any = false;
    for (let id = 0; id < logits.length; id++) {
      if (!allowed[id]) logits[id] = -Infinity;
      else any = true;
    }
    // Every byte is a token, so some token always continues a valid answer; none means the guide has a bug.
    if (!any) throw new Error('structured output: no token continues the answer (a bug in the action guide)');
  }

  accept(token: number): void {
    if (token === this.vocab.endId) return;
    const bytes = this.vocab.bytes[token];
    if (!bytes) throw new Error(`structured output: token ${token} is a special token, not part of an answer`);
    for (const b of bytes) {
      if (!this.state.push(b)) throw new Error(`structured output: token ${token} does not continue the answer`);
    }
  }

  private fits(bytes: Uint8Array): boolean {
    this.trial.copyFrom(this.state);
    for (let i = 0; i < bytes.length; i++) if (!this.trial.push(bytes[i])) return false;
    return true;
  }
}

/** Fresh action guides over one tokenizer's vocabulary, which is indexed once (a TextEnv's `guide`, a student's). */
export function actionGuides(tok: Tokenizer): () => ActionGuide {
  const vocab = new GuideVocabulary(tok);
  return () => new ActionGuide(vocab);
}
