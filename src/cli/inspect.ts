// `canvasgym inspect`: the rollout inspector (src/inspect/app.ts), read-only over the runs on disk, until Ctrl-C.
import { existsSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { startInspector } from '../inspect/app.ts';
import { isLoopbackHost } from '../server/access.ts';
import { InspectSettings } from './inspect-settings.ts';
import { addSettingFlags, readSettings } from './settings-flags.ts';
import { UsageError } from './usage-error.ts';

export function registerInspect(cmd: Command): void {
  addSettingFlags(cmd, InspectSettings).action(async (opts: Record<string, unknown>) => {
    const flags = readSettings(InspectSettings, opts);
    if (existsSync(flags.runs_dir) && !statSync(flags.runs_dir).isDirectory()) throw new UsageError(`--runs-dir: ${flags.runs_dir} is a file, not a folder of runs`);
    let inspector;
    try {
      inspector = await startInspector({ runsDir: flags.runs_dir, host: flags.host, port: flags.port });
    } catch (err) {
      throw new UsageError(`cannot listen on ${flags.host}:${flags.port}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (!isLoopbackHost(flags.host)) process.stderr.write(`canvasgym inspect: warning: listening on ${flags.host}, beyond loopback: anyone who can reach it can read the runs' prompts and completions\n`);
    process.stdout.write(`canvasgym inspect: ${inspector.url} (runs in ${flags.runs_dir}; Ctrl-C stops)\n`);
    await new Promise<void>((done) => {
      const stop = () => void inspector.close().then(done);
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  });
}
