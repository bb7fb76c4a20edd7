// Byte-level BPE, trained on the training corpus, saved in the Hugging Face `tokenizers` format (tokenizer.json).
// Ids 0..255 are the bytes, then one id per learned merge, then the chat special tokens.
import { readFileSync } from 'node:fs';

export const SPECIAL_TOKENS = ['<|system|>', '<|user|>', '<|assistant|>', '<|end|>'] as const;
export type SpecialToken = (typeof SPECIAL_TOKENS)[number];

/** A pre-token is a JSON key with the punctuation around it (`{"type":"`, `","id":"`, `,"y":`, `"},{"type":"`), a
 *  word, a number, whitespace, or a run of punctuation. Keys become single tokens; a word never carries the space
 *  before it nor the punctuation after it, so that a name is the same tokens wherever it stands: `Web Logs` is
 *  `Web`, ` `, `Logs` in `draw Web Logs,`, in `"text":"Web Logs"}` and in `"from":"Web Logs",`. What the student
 *  copies from the request looks the same in its answer. Written for both JavaScript (`u` flag) and Oniguruma
 *  (`tokenizers`). */
export const PRETOKEN_PATTERN = String.raw`[^\s\p{L}\p{N}]*[\p{L}_]+":"?|[\p{L}_]+|\p{N}+|\s+(?!\S)|\s+| ?[^\s\p{L}\p{N}]+`;

export const DEFAULT_VOCAB_SIZE = 2048;
/** The bytes and the special tokens, with no merge. */
export const MIN_VOCAB_SIZE = 256 + SPECIAL_TOKENS.length;
/** Past this the embedding alone outweighs the largest student several times over, and the teacher data holds far
 *  fewer distinct pieces to merge. */
export const MAX_VOCAB_SIZE = 65536;

/** GPT-2's reversible map from bytes to printable characters (what `ByteLevel` uses in tokenizer.json). */
function bytesToUnicode(): string[] {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const chars: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    chars[b] = printable.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + extra++);
  }
  return chars;
}
const BYTE_CHARS = bytesToUnicode();
const CHAR_BYTES = new Map(BYTE_CHARS.map((c, b) => [c, b]));

const pairKey = (a: number, b: number) => a * 65536 + b;

export interface Merge {
  a: number;
  b: number;
}

export class Tokenizer {
  /** Byte sequence of every non-special id. */
  private readonly pieces: Uint8Array[];
  /** pairKey -> rank (the merge's index; its new id is 256 + rank). */
  private readonly ranks = new Map<number, number>();
  private readonly cache = new Map<string, number[]>();
  private readonly pretoken: RegExp;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder('utf-8');
  readonly specialIds: Record<SpecialToken, number>;

  constructor(
    readonly merges: readonly Merge[],
    readonly pattern: string = PRETOKEN_PATTERN,
  ) {
    this.pretoken = new RegExp(pattern, 'gu');
    this.pieces = [];
    for (let b = 0; b < 256; b++) this.pieces.push(Uint8Array.of(b));
    merges.forEach((m, rank) => {
      const id = 256 + rank;
      if (m.a >= id || m.b >= id) throw new Error(`merge ${rank} refers to id ${Math.max(m.a, m.b)}, which is not defined before it`);
      const left = this.pieces[m.a];
      const right = this.pieces[m.b];
      const joined = new Uint8Array(left.length + right.length);
      joined.set(left);
      joined.set(right, left.length);
      this.pieces.push(joined);
      this.ranks.set(pairKey(m.a, m.b), rank);
    });
    const first = 256 + merges.length;
    this.specialIds = Object.fromEntries(SPECIAL_TOKENS.map((t, i) => [t, first + i])) as Record<SpecialToken, number>;
  }

  get vocabSize(): number {
    return 256 + this.merges.length + SPECIAL_TOKENS.length;
  }

  /** `<|end|>` ends every turn; it is also eos, bos and pad. */
  get endId(): number {
    return this.specialIds['<|end|>'];
  }

  /** Plain text to ids. Special-token strings inside the text are encoded as ordinary text, never as specials. */
  encode(text: string): number[] {
    const out: number[] = [];
    for (const m of text.matchAll(this.pretoken)) {
      const piece = m[0];
      let ids = this.cache.get(piece);
      if (!ids) {
        ids = this.bpe(Array.from(this.encoder.encode(piece)));
        if (this.cache.size < 200_000) this.cache.set(piece, ids);
      }
      for (const id of ids) out.push(id);
    }
    return out;
  }

  /** Applies merges by rank, lowest first, every occurrence left to right (GPT-2's rule). */
  private bpe(word: number[]): number[] {
    while (word.length > 1) {
      let best = -1;
      for (let i = 0; i + 1 < word.length; i++) {
        const r = this.ranks.get(pairKey(word[i], word[i + 1]));
        if (r !== undefined && (best === -1 || r < best)) best = r;
      }
      if (best === -1) break;
      word = mergeWord(word, this.merges[best].a, this.merges[best].b, 256 + best);
    }
    return word;
  }

  /** Ids to text; special tokens are written out (`<|end|>`) unless skipped. Invalid UTF-8 (a cut sample) becomes U+FFFD. */
  decode(ids: ArrayLike<number>, opts: { skipSpecial?: boolean } = {}): string {
    const parts: string[] = [];
    let bytes: number[] = [];
    const flush = () => {
      if (bytes.length) parts.push(this.decoder.decode(Uint8Array.from(bytes)));
      bytes = [];
    };
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (id < this.pieces.length && id >= 0) {
        for (const b of this.pieces[id]) bytes.push(b);
      } else if (id < this.vocabSize && id >= 0) {
        flush();
        if (!opts.skipSpecial) parts.push(SPECIAL_TOKENS[id - this.pieces.length]);
      } else {
        throw new Error(`token id ${id} is outside the vocabulary (size ${this.vocabSize})`);
      }
    }
    flush();
    return parts.join('');
  }

  /** The bytes an ordinary token stands for; undefined for a special token or an id outside the vocabulary. */
  tokenBytes(id: number): Uint8Array | undefined {
    return id >= 0 && id < this.pieces.length ? this.pieces[id] : undefined;
  }

  /** The token's string in tokenizer.json (bytes through GPT-2's byte-to-unicode map). */
  tokenString(id: number): string {
    if (id >= this.pieces.length) return SPECIAL_TOKENS[id - this.pieces.length];
    let s = '';
    for (const b of this.pieces[id]) s += BYTE_CHARS[b];
    return s;
  }

  /** tokenizer.json as `tokenizers` (and transformers' PreTrainedTokenizerFast) reads it. */
  toHuggingFace(): Record<string, unknown> {
    const vocab: Record<string, number> = {};
    for (let id = 0; id < this.pieces.length; id++) vocab[this.tokenString(id)] = id;
    return {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: SPECIAL_TOKENS.map((content) => ({
        id: this.specialIds[content],
        content,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      })),
      normalizer: null,
      pre_tokenizer: {
        type: 'Sequence',
        pretokenizers: [
          { type: 'Split', pattern: { Regex: this.pattern }, behavior: 'Isolated', invert: false },
          { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
        ],
      },
      post_processor: null,
      decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
      model: {
        type: 'BPE',
        dropout: null,
        unk_token: null,
        continuing_subword_prefix: null,
        end_of_word_suffix: null,
        fuse_unk: false,
        byte_fallback: false,
        vocab,
        merges: this.merges.map((m) => `${this.tokenString(m.a)} ${this.tokenString(m.b)}`),
      },
    };
  }

  static fromHuggingFace(json: unknown, source = 'tokenizer.json'): Tokenizer {
    const fail = (what: string): never => {
      throw new Error(`${source}: ${what}`);
    };
    const j = json as Record<string, any>;
    if (typeof j !== 'object' || j === null) fail('not a JSON object');
    const model = j.model;
    if (model?.type !== 'BPE') fail(`model.type is ${JSON.stringify(model?.type)}, expected "BPE"`);
    const vocab = model.vocab as Record<string, number>;
    if (typeof vocab !== 'object' || vocab === null) fail('model.vocab is missing');
    for (let b = 0; b < 256; b++) {
      if (vocab[BYTE_CHARS[b]] !== b) fail(`byte ${b} must have id ${b} (a canvasgym byte-level vocabulary)`);
    }
    if (!Array.isArray(model.merges)) fail('model.merges is missing');
    const merges: Merge[] = model.merges.map((m: unknown, rank: number) => {
      const [left, right] = Array.isArray(m) ? m : typeof m === 'string' ? m.split(' ') : [];
      const a = vocab[left];
      const b = vocab[right];
      if (a === undefined || b === undefined) fail(`merge ${rank} (${JSON.stringify(m)}) names a token that is not in the vocabulary`);
      if (vocab[left + right] !== 256 + rank) fail(`merge ${rank} must produce id ${256 + rank}`);
      return { a, b };
    });
    const split = (j.pre_tokenizer?.pretokenizers ?? []).find((p: any) => p.type === 'Split');
    const pattern = split?.pattern?.Regex;
    if (typeof pattern !== 'string') fail('pre_tokenizer has no Split regex');
    const tok = new Tokenizer(merges, pattern);
    for (const t of SPECIAL_TOKENS) {
      const added = (j.added_tokens ?? []).find((a: any) => a.content === t);
      if (added?.id !== tok.specialIds[t]) fail(`special token ${t} must have id ${tok.specialIds[t]}`);
    }
    return tok;
  }

  static load(path: string): Tokenizer {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new Error(`cannot read tokenizer ${path}: ${(err as Error).message}`);
    }
    return Tokenizer.fromHuggingFace(json, path);
  }
}

function mergeWord(word: number[], a: number, b: number, id: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < word.length; i++) {
    if (i + 1 < word.length && word[i] === a && word[i + 1] === b) {
      out.push(id);
      i++;
    } else {
      out.push(word[i]);
    }
  }
  return out;
}

export interface TrainTokenizerOptions {
  /** Including the 256 bytes and the special tokens. */
  vocabSize?: number;
  /** A pair seen fewer times than this is never merged. */
  minFrequency?: number;
  pattern?: string;
}

/** Learns merges from a corpus: repeatedly merges the most frequent adjacent pair (ties: the smaller pair of ids). */
export function trainTokenizer(corpus: Iterable<string>, opts: TrainTokenizerOptions = {}): Tokenizer {
  const vocabSize = opts.vocabSize ?? DEFAULT_VOCAB_SIZE;
  const minFrequency = opts.minFrequency ?? 2;
  const pattern = opts.pattern ?? PRETOKEN_PATTERN;
  if (!Number.isInteger(vocabSize) || vocabSize < MIN_VOCAB_SIZE || vocabSize > MAX_VOCAB_SIZE) {
    throw new Error(`vocabSize must be an integer from ${MIN_VOCAB_SIZE} (bytes and special tokens) to ${MAX_VOCAB_SIZE}, got ${vocabSize}`);
  }
  const numMerges = vocabSize - MIN_VOCAB_SIZE;
  const re = new RegExp(pattern, 'gu');
  const encoder = new TextEncoder();
  const wordCounts = new Map<string, number>();
  for (const text of corpus) {
    for (const m of text.matchAll(re)) wordCounts.set(m[0], (wordCounts.get(m[0]) ?? 0) + 1);
  }
  const words: number[][] = [];
  const counts: number[] = [];
  for (const [w, c] of wordCounts) {
    words.push(Array.from(encoder.encode(w)));
    counts.push(c);
  }
  const pairCounts = new Map<number, number>();
  const pairWords = new Map<number, Set<number>>();
  const addWord = (wi: number, sign: 1 | -1) => {
    const w = words[wi];
    for (let i = 0; i + 1 < w.length; i++) {
      const k = pairKey(w[i], w[i + 1]);
      pairCounts.set(k, (pairCounts.get(k) ?? 0) + sign * counts[wi]);
      if (sign === 1) {
        let s = pairWords.get(k);
        if (!s) pairWords.set(k, (s = new Set()));
        s.add(wi);
      }
    }
  };
  for (let wi = 0; wi < words.length; wi++) addWord(wi, 1);

  // Two merges may spell the same bytes ((a, bc) after (ab, c)); a vocabulary holds each string once, so the later one is
  // dropped and its pair is never merged, which the encoder reproduces because it only knows the kept merges.
  const spelled: string[] = [];
  for (let b = 0; b < 256; b++) spelled.push(String.fromCharCode(b));
  const known = new Set(spelled);
  const dropped = new Set<number>();
  const merges: Merge[] = [];
  while (merges.length < numMerges) {
    let bestKey = -1;
    let bestCount = minFrequency - 1;
    for (const [k, c] of pairCounts) {
      if (dropped.has(k)) continue;
      if (c > bestCount || (c === bestCount && bestKey !== -1 && k < bestKey)) {
        bestKey = k;
        bestCount = c;
      }
    }
    if (bestKey === -1) break;
    const a = Math.floor(bestKey / 65536);
    const b = bestKey % 65536;
    const joined = spelled[a] + spelled[b];
    if (known.has(joined)) {
      dropped.add(bestKey);
      continue;
    }
    known.add(joined);
    spelled.push(joined);
    const id = 256 + merges.length;
    merges.push({ a, b });
    for (const wi of pairWords.get(bestKey) ?? []) {
      addWord(wi, -1);
      words[wi] = mergeWord(words[wi], a, b, id);
      addWord(wi, 1);
    }
    pairCounts.delete(bestKey);
    pairWords.delete(bestKey);
  }
  return new Tokenizer(merges, pattern);
}
