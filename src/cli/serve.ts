// `canvasgym serve`: the environment as an HTTP service (reward, episodes, OpenRLHF's remote reward) and, with
// --policy, the student behind an OpenAI-compatible endpoint.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { isLoopbackHost, parseOrigins } from '../server/access.ts';
import { describeAccess, describeLimits, startServer, type ServerConfig } from '../server/app.ts';
import { UsageError } from './usage-error.ts';
import { flagOf, pickSettings, settingsIssue } from '../settings.ts';
import { CheckedServerSettings, ServerSettings } from '../server/settings.ts';
import { ServeSettings } from './serve-settings.ts';
import { addSettingFlags, readSettings } from './settings-flags.ts';

/** Files the process needs beside its connections: modules, scoring threads, the model, stdio. */
const FILES_BESIDE_CONNECTIONS = 256;

/** The soft limit on open files (Linux; node raises it to the hard limit at start), or undefined where unknown. */
function openFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isFinite(soft) ? soft : undefined;
  } catch {
    return undefined;
  }
}

export function registerServe(cmd: Command): void {
  addSettingFlags(cmd, ServeSettings)
    .action(async (opts: Record<string, unknown>) => {
      const flags = readSettings(ServeSettings, opts);
      const apiKey = flags.apiKey ?? (process.env.CANVASGYM_API_KEY || undefined);
      if (apiKey !== undefined && apiKey.trim() === '') throw new UsageError('--api-key must not be empty');
      let allowOrigins: string[] = [];
      try {
        allowOrigins = parseOrigins((flags.allow_origin ?? '').split(',').map((o) => o.trim()).filter(Boolean));
      } catch (err) {
        throw new UsageError(`--allow-origin: ${(err as Error).message}`);
      }
      const config: ServerConfig = { ...pickSettings(ServerSettings, flags), apiKey, allowOrigins };
      const issue = settingsIssue(CheckedServerSettings, config, (key) => flagOf(key, ServerSettings.shape[key as keyof typeof ServerSettings.shape]) ?? key);
      if (issue) throw new UsageError(issue);
      if (flags.structured_output && flags.policy === undefined) throw new UsageError('--structured-output applies to the student: give --policy CKPT');
      if (flags.policy !== undefined) {
        const { StudentPolicy } = await import('../policy/student.ts');
        const { actionGuides } = await import('../diagram/language/structured.ts');
        // A bad checkpoint is a CheckpointError, which the command line prints as one line.
        config.policy = await StudentPolicy.load(flags.policy, { guideFor: flags.structured_output ? actionGuides : undefined });
      }
      let running;
      try {
        running = await startServer(config);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        throw new UsageError(`cannot listen on ${flags.host}:${flags.port}: ${code ?? (err as Error).message}`);
      }
      const files = openFileLimit();
      if (files !== undefined && files < running.config.maxConnections + FILES_BESIDE_CONNECTIONS) {
        process.stderr.write(
          `canvasgym serve: warning: this process may open ${files} files (ulimit -n) but --max-connections is ${running.config.maxConnections}: past about ${files - FILES_BESIDE_CONNECTIONS} connections new ones fail before the cap can make room; raise ulimit -n or lower --max-connections\n`,
        );
      }
      const limits = describeLimits(running.config);
      const access = describeAccess(running.config);
      if (!isLoopbackHost(flags.host) && !apiKey) {
        process.stderr.write(
          `canvasgym serve: warning: listening on ${flags.host}, beyond loopback, without --api-key: anyone who can reach this address can score, open sessions${config.policy ? ' and use the model' : ''}; pass --api-key KEY (or set CANVASGYM_API_KEY)\n`,
        );
      }
      process.stdout.write(
        `canvasgym serve: listening on ${running.url}\n` +
          `  reward preset: ${running.config.reward}\n` +
          `  limits: ${Object.entries(limits).map(([k, v]) => `${k}=${v}`).join(' ')}\n` +
          `  access: ${access.api_key ? 'bearer token required (--api-key), /health open' : 'no api key'}; browser pages from ${access.browser_origins.join(', ')}\n` +
          (config.policy ? `  model: ${running.config.modelId} (${flags.policy}) on /v1/chat/completions and /v1/completions\n` : '') +
          `  routes: GET /health /schema /state, POST /reward /get_reward /reset /step /close${config.policy ? ', GET /v1/models, POST /v1/chat/completions /v1/completions' : ''}\n`,
      );
      const stop = () => {
        process.stdout.write('canvasgym serve: shutting down\n');
        void running.close().then(async () => {
          await config.policy?.close?.();
          process.exit(0);
        });
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
