// One progress display across the stages of a long job: an overall bar (stage k of N) and the current stage's bar,
// with log lines printed above them. Without a terminal (CI, pipes) it prints plain lines instead, a few per stage.
import cliProgress from 'cli-progress';

export interface StageProgressOptions {
  /** Draw bars; defaults to whether stderr is a terminal. */
  bars?: boolean;
  stream?: NodeJS.WriteStream;
}

const fmtSeconds = (s: number) => (s >= 90 ? `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${s.toFixed(1)}s`);

export class StageProgress {
  private readonly bars: boolean;
  private readonly stream: NodeJS.WriteStream;
  private multi: cliProgress.MultiBar | null = null;
  private overall: cliProgress.SingleBar | null = null;
  private current: cliProgress.SingleBar | null = null;
  private stageIndex = 0;
  private stageName = '';
  private stageStarted = 0;
  private total = 0;
  private lastPlainTenth = -1;

  constructor(
    private readonly stages: readonly string[],
    o: StageProgressOptions = {},
  ) {
    this.stream = o.stream ?? process.stderr;
    this.bars = o.bars ?? Boolean(this.stream.isTTY);
    if (this.bars) {
      this.multi = new cliProgress.MultiBar(
        { format: '{label} {bar} {value}/{total} {info}', hideCursor: true, clearOnComplete: false, stream: this.stream, barsize: 24 },
        cliProgress.Presets.shades_classic,
      );
      this.overall = this.multi.create(stages.length, 0, { label: 'run  '.padEnd(14), info: '' });
    }
  }

  /** Begins a stage with `total` units of work. */
  start(stage: string, total: number, info = ''): void {
    this.stageIndex = Math.max(0, this.stages.indexOf(stage));
    this.stageName = stage;
    this.stageStarted = performance.now();
    this.total = Math.max(1, total);
    this.lastPlainTenth = -1;
    if (this.multi) {
      this.overall!.update(this.stageIndex, { info: `stage ${this.stageIndex + 1}/${this.stages.length}: ${stage}` });
      this.current?.stop();
      if (this.current) this.multi.remove(this.current);
      this.current = this.multi.create(this.total, 0, { label: stage.padEnd(14), info });
    } else {
      this.stream.write(`[${this.stageIndex + 1}/${this.stages.length}] ${stage}${info ? `: ${info}` : ''}\n`);
    }
  }

  /** Changes the current stage's amount of work once it is known (a trainer reports its step count late). */
  setTotal(total: number): void {
    if (total === this.total) return;
    this.total = Math.max(1, total);
    this.current?.setTotal(this.total);
  }

  update(value: number, info = ''): void {
    if (this.current) {
      this.current.update(Math.min(value, this.total), { info });
      return;
    }
    const tenth = Math.floor((10 * value) / this.total);
    if (tenth > this.lastPlainTenth && tenth < 10) {
      this.lastPlainTenth = tenth;
      if (tenth > 0) this.stream.write(`    ${this.stageName} ${value}/${this.total}${info ? ` ${info}` : ''}\n`);
    }
  }

  log(line: string): void {
    if (this.multi) this.multi.log(line.endsWith('\n') ? line : `${line}\n`);
    else this.stream.write(line.endsWith('\n') ? line : `${line}\n`);
  }

  /** Ends the current stage with a one-line summary; `skipped` marks a stage done by an earlier run. */
  finish(summary: string, o: { skipped?: boolean } = {}): void {
    const took = fmtSeconds((performance.now() - this.stageStarted) / 1000);
    const line = o.skipped ? `${this.stageName}: already done (${summary})` : `${this.stageName}: ${summary} (${took})`;
    if (this.multi) {
      this.current?.update(this.total, { info: 'done' });
      this.overall!.update(this.stageIndex + 1, { info: '' });
    }
    this.log(`  ${line}`);
  }

  stop(): void {
    this.multi?.stop();
    this.multi = null;
  }
}
