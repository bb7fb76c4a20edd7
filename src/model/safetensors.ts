// The safetensors format: 8-byte little-endian header length, a JSON header {name: {dtype, shape, data_offsets}, __metadata__},
// then the raw little-endian tensor bytes. canvasgym stores float32 only.
import { readFileSync, writeFileSync } from 'node:fs';

export interface NamedTensor {
  name: string;
  shape: number[];
  data: Float32Array;
}

export interface SafetensorsFile {
  tensors: NamedTensor[];
  metadata: Record<string, string>;
}

/** Headers longer than this are refused before parsing (the reference implementation's limit). */
const MAX_HEADER_BYTES = 100_000_000;

export function encodeSafetensors(tensors: NamedTensor[], metadata: Record<string, string> = {}): Uint8Array {
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length) header.__metadata__ = metadata;
  let offset = 0;
  const seen = new Set<string>();
  for (const t of tensors) {
    if (seen.has(t.name)) throw new Error(`duplicate tensor name ${t.name}`);
    if (t.name === '__metadata__') throw new Error('a tensor may not be named __metadata__');
    seen.add(t.name);
    const numel = t.shape.reduce((a, b) => a * b, 1);
    if (numel !== t.data.length) throw new Error(`tensor ${t.name}: shape [${t.shape}] holds ${numel} values, data has ${t.data.length}`);
    header[t.name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + numel * 4] };
    offset += numel * 4;
  }
  // The data starts 8-byte aligned: pad the header with spaces, as the reference implementation does.
  let json = JSON.stringify(header);
  const jsonBytes = new TextEncoder().encode(json);
  const padded = Math.ceil(jsonBytes.length / 8) * 8;
  json += ' '.repeat(padded - jsonBytes.length);
  const out = new Uint8Array(8 + padded + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(padded), true);
  out.set(new TextEncoder().encode(json), 8);
  let at = 8 + padded;
  for (const t of tensors) {
    const bytes = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    out.set(bytes, at); // Float32Array is little-endian on every platform Node runs on.
    at += bytes.length;
  }
  return out;
}

export function decodeSafetensors(buf: Uint8Array, source = 'safetensors data'): SafetensorsFile {
  const fail = (what: string): never => {
    throw new Error(`${source}: ${what}`);
  };
  if (buf.length < 8) fail(`truncated: ${buf.length} bytes, too short for the 8-byte header length`);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const headerLen = Number(view.getBigUint64(0, true));
  if (headerLen > MAX_HEADER_BYTES) fail(`header length ${headerLen} is implausible (limit ${MAX_HEADER_BYTES})`);
  if (8 + headerLen > buf.length) fail(`truncated: the header claims ${headerLen} bytes but the file has ${buf.length - 8} after the length`);
  let header: Record<string, any>;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(buf.subarray(8, 8 + headerLen)));
  } catch (err) {
    return fail(`header is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) fail('header is not a JSON object');
  const dataStart = 8 + headerLen;
  const dataLen = buf.length - dataStart;
  const metadata: Record<string, string> = {};
  const entries: { name: string; shape: number[]; begin: number; end: number }[] = [];
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') {
      if (typeof info !== 'object' || info === null) fail('__metadata__ is not an object');
      for (const [k, v] of Object.entries(info)) {
        if (typeof v !== 'string') fail(`__metadata__.${k} is not a string`);
        metadata[k] = v as string;
      }
      continue;
    }
    if (info?.dtype !== 'F32') fail(`tensor ${name} has dtype ${JSON.stringify(info?.dtype)}; canvasgym reads F32 only`);
    const shape = info.shape;
    if (!Array.isArray(shape) || !shape.every((d: unknown) => Number.isInteger(d) && (d as number) >= 0)) {
      fail(`tensor ${name} has a bad shape ${JSON.stringify(shape)}`);
    }
    const off = info.data_offsets;
    if (!Array.isArray(off) || off.length !== 2 || !off.every((o: unknown) => Number.isInteger(o) && (o as number) >= 0) || off[0] > off[1]) {
      fail(`tensor ${name} has bad data_offsets ${JSON.stringify(off)}`);
    }
    const numel = (shape as number[]).reduce((a, b) => a * b, 1);
    if (off[1] - off[0] !== numel * 4) {
      fail(`tensor ${name}: data_offsets [${off}] span ${off[1] - off[0]} bytes, shape [${shape}] of F32 needs ${numel * 4}`);
    }
    if (off[1] > dataLen) fail(`truncated: tensor ${name} ends at byte ${off[1]} of the data, which has only ${dataLen} bytes`);
    entries.push({ name, shape, begin: off[0], end: off[1] });
  }
  // The format requires the tensors to tile the data exactly: no gaps, no overlaps.
  const sorted = [...entries].sort((a, b) => a.begin - b.begin);
  let expected = 0;
  for (const e of sorted) {
    if (e.begin !== expected) fail(`tensor ${e.name} starts at byte ${e.begin}, expected ${expected} (gap or overlap in data_offsets)`);
    expected = e.end;
  }
  if (expected !== dataLen) fail(`the data is ${dataLen} bytes but the tensors cover ${expected}`);
  const tensors = entries.map((e) => {
    // Copy: the file buffer's offset need not be 4-byte aligned.
    const data = new Float32Array(new Uint8Array(buf.subarray(dataStart + e.begin, dataStart + e.end)).buffer);
    return { name: e.name, shape: e.shape, data };
  });
  return { tensors, metadata };
}

export function saveSafetensors(path: string, tensors: NamedTensor[], metadata: Record<string, string> = {}): void {
  writeFileSync(path, encodeSafetensors(tensors, metadata));
}

export function loadSafetensors(path: string): SafetensorsFile {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as Error).message}`);
  }
  return decodeSafetensors(buf, path);
}
