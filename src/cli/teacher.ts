// `canvasgym teacher`: teacher data from a policy over a task file, scored with a reward, resumable.
import { join } from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { getRubric } from '../diagram/reward/presets.ts';
import { parseQuirks } from '../diagram/teacher/quirks.ts';
import { policyFromSpec } from '../diagram/teacher/registry.ts';
import { RemoteError } from '../policy/remote.ts';
import { runTeacher, TeacherRunMismatch, type TeacherSummary } from '../diagram/teacher/teacher.ts';
import { UsageError } from './usage-error.ts';
import { outputDirFlag } from './flags.ts';
import { TeacherSettings } from './teacher-settings.ts';
import { addSettingFlags, readSettings } from './settings-flags.ts';
import { readTeacherTasks } from './task-file.ts';

/** Runs a flag's parser, turning its Error into a UsageError that names the flag. */
function usage<T>(flag: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new UsageError(`${flag}: ${(err as Error).message}`);
  }
}

export function formatSummary(s: TeacherSummary, outDir: string): string {
  const pct = (v: number) => `${(100 * v).toFixed(1)}%`;
  const lines = [
    `teacher: ${s.accepted} accepted, ${s.rejected} rejected (accept rate ${pct(s.accept_rate)}) of ${s.total} task attempts` +
      (s.failed ? `; ${s.failed} failed to generate (rerun to retry them)` : ''),
    `reward: mean ${s.reward.mean.toFixed(3)}, min ${s.reward.min.toFixed(3)}, p10 ${s.reward.p10.toFixed(3)}, median ${s.reward.p50.toFixed(3)}, p90 ${s.reward.p90.toFixed(3)}, max ${s.reward.max.toFixed(3)}` +
      (s.reward.accepted_min !== null ? `; lowest accepted ${s.reward.accepted_min.toFixed(3)}` : ''),
    `histogram (0.0-0.1 ... 0.9-1.0): ${s.reward.histogram.join(' ')}`,
  ];
  const fired = Object.entries(s.quirks.accepted).concat(Object.entries(s.quirks.rejected));
  if (fired.length > 0) {
    const fmt = (c: Record<string, number>) => Object.entries(c).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
    lines.push(`quirks fired: accepted rows ${fmt(s.quirks.accepted)}; rejected rows ${fmt(s.quirks.rejected)}`);
  }
  if (s.top_errors.length > 0) {
    lines.push('top errors:');
    for (const e of s.top_errors.slice(0, 5)) lines.push(`  ${String(e.count).padStart(5)}  ${e.message}`);
  }
  if (s.resumed_from > 0) lines.push(`resumed: ${s.resumed_from} attempts were already on disk`);
  lines.push(`wrote ${join(outDir, 'train.jsonl')}, ${join(outDir, 'rejected.jsonl')}, ${join(outDir, 'summary.json')} in ${s.elapsed_s.toFixed(1)} s`);
  return lines.join('\n');
}

export function registerTeacher(cmd: Command): void {
  addSettingFlags(cmd, TeacherSettings)
    .action(async (opts: Record<string, unknown>) => {
      const flags = readSettings(TeacherSettings, opts);
      outputDirFlag('--out', flags.out);
      const { attempts, seed, temperature } = flags;
      const minReward = flags.min_reward;
      const quirks = usage('--quirks', () => (flags.quirks ? parseQuirks(flags.quirks) : {}));
      const rubric = getRubric(flags.reward);
      const tasks = await readTeacherTasks(flags.tasks);
      const specs = new Map(tasks.map((t) => [t.prompt, t.spec]));
      let policy;
      try {
        policy = await policyFromSpec(flags.policy, {
          specFor: (prompt) => specs.get(prompt),
          quirks,
          walk: flags.walk,
          baseUrl: flags.base_url,
          apiKey: flags.api_key,
          singleChoice: flags.single_choice,
          concurrency: flags.concurrency,
          timeoutMs: 1000 * flags.timeout,
          maxRetries: flags.max_retries,
        });
      } catch (err) {
        if (err instanceof UsageError) throw err;
        throw new UsageError(`--policy: ${(err as Error).message}`);
      }

      const bar = new cliProgress.SingleBar(
        {
          format: 'teacher |{bar}| {value}/{total} | accept {accept} | {rate}/s | failed {failed} | ETA {eta_formatted}',
          stream: process.stderr,
          hideCursor: true,
          etaBuffer: 50,
        },
        cliProgress.Presets.shades_classic,
      );
      const started = performance.now();
      let barOn = false;
      try {
        const summary = await runTeacher({
          policy,
          rubric,
          tasks,
          outDir: flags.out,
          batchSize: flags.batch_size,
          maxTokens: flags.max_tokens,
          config: { policy: flags.policy, attempts, minReward, seed, temperature, reward: flags.reward, quirks, walk: flags.walk },
          onProgress: (p) => {
            if (!flags.progress) return;
            const scored = p.accepted + p.rejected;
            const payload = {
              accept: scored ? `${((100 * p.accepted) / scored).toFixed(1)}%` : '-',
              rate: (p.written / Math.max(1e-3, (performance.now() - started) / 1000)).toFixed(1),
              failed: p.failed,
            };
            if (!barOn) {
              bar.start(p.total, p.done, payload);
              barOn = true;
            } else bar.update(p.done, payload);
          },
        });
        if (barOn) bar.stop();
        process.stdout.write(formatSummary(summary, flags.out) + '\n');
        // No data to train on must not pass for a success in a script (`teacher ... && sft ...`).
        if (summary.accepted === 0) {
          process.stderr.write(`canvasgym teacher: no row accepted: ${summary.failed} of ${summary.total} attempts failed to generate, ${summary.rejected} rejected\n`);
          process.exitCode = 1;
        }
      } catch (err) {
        if (barOn) bar.stop();
        if (err instanceof TeacherRunMismatch) throw new UsageError(err.message);
        if (err instanceof RemoteError && err.fatal) {
          throw new UsageError(`${err.message} (rows written so far are kept; rerun the same command to resume)`);
        }
        throw err;
      } finally {
        await policy.close?.();
      }
    });
}
