// What a component that asks an OpenAI-compatible chat model on the side (the judge, the spec model) holds: its
// endpoint for error messages, a client that loads the SDK on first use (a command that never asks does not pay its
// few hundred ms), a limit on requests in flight, and a disk cache of answers. Both keep answers as files named by a
// hash of what decides them, written whole under another name and then renamed, so that a reader never meets half a
// file.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type OpenAI from 'openai';
import { OPENAI_DEFAULT_BASE_URL } from './openai.ts';
import { Limiter, withDefaults, type Endpoint, type RemoteOptions } from './remote.ts';

export interface ChatConnectionOptions extends RemoteOptions {
  /** The chat model's name on the server. */
  model: string;
  /** Defaults to OPENAI_BASE_URL, then OpenAI's API. */
  baseURL?: string;
  /** Defaults to OPENAI_API_KEY; a local server may go without one. */
  apiKey?: string;
  env?: NodeJS.ProcessEnv;
}

export interface ChatConnection {
  /** `openai:MODEL`. */
  name: string;
  baseURL: string;
  endpoint: Endpoint;
  client: Promise<OpenAI>;
  limiter: Limiter;
}

/** A connection for `role` ("judge"), naming `keyHint` where the key is refused. */
export function chatConnection(options: ChatConnectionOptions, role: string, keyHint: string): ChatConnection {
  const env = options.env ?? process.env;
  const baseURL = (options.baseURL ?? env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '');
  // A local server accepts any key; the SDK insists on one. OpenAI's own API without a key fails per request.
  const apiKey = options.apiKey ?? env.OPENAI_API_KEY ?? 'no-key';
  const name = `openai:${options.model}`;
  return {
    name,
    baseURL,
    endpoint: { policy: `${role} ${name}`, baseUrl: baseURL, model: options.model, keyHint },
    client: import('openai').then(({ default: SDK }) => new SDK({ apiKey, baseURL, maxRetries: 0, timeout: withDefaults(options).timeoutMs + 1_000 })),
    limiter: new Limiter(withDefaults(options).concurrency),
  };
}

export const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** Answers kept in `dir`, one JSON file per key (the hash of what decides the answer). */
export class AnswerCache {
  constructor(readonly dir: string) {}

  fileOf(decidedBy: unknown): string {
    return join(this.dir, `${sha256(JSON.stringify(decidedBy))}.json`);
  }

  /** The file's text, or null when there is none. */
  read(file: string): string | null {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return null;
    }
  }

  /** Whether `value` was written. The directory is made when first written, so that a component set up before a run
   *  folder exists leaves nothing behind. */
  write(file: string, value: unknown): { ok: true } | { ok: false; error: string } {
    try {
      mkdirSync(this.dir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(value) + '\n');
      renameSync(tmp, file);
      return { ok: true };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  }
}
