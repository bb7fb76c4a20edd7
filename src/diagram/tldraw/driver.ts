// Drives the validator page in Debian's Chromium: one browser, a pool of pages, batches of diagrams per call.
// A page whose renderer or editor crashed is replaced and its diagram retried once; requests that leave 127.0.0.1
// are blocked and, like any failed request, make the run fail (a missing font would silently change text metrics).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { BatchOptions, PageDiagram, PageResult } from './protocol.ts';
import { servePage, type PageServer } from './server.ts';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface DriverOptions {
  /** Pages working in parallel (default 1: on 2 cores a second page mostly adds contention). */
  pages?: number;
  /** Diagrams per page call. */
  batchSize?: number;
  executablePath?: string;
  /** Milliseconds to wait for the page to become ready. */
  readyTimeoutMs?: number;
}

export interface RunOptions extends BatchOptions {
  onProgress?: (done: number, total: number) => void;
}

/** A request the driver refused or saw fail: any one of them fails the run. */
export interface RequestProblem {
  url: string;
  problem: 'external' | 'failed';
  detail?: string;
}

const READY = () => window.canvasgym?.ready === true;

class Slot {
  page!: Page;
  restarts = 0;
  constructor(
    private readonly context: BrowserContext,
    private readonly url: string,
    private readonly readyTimeoutMs: number,
  ) {}

  async open(): Promise<void> {
    this.page = await this.context.newPage();
    await this.page.goto(this.url);
    await this.page.waitForFunction(READY, undefined, { timeout: this.readyTimeoutMs });
  }

  async restart(): Promise<void> {
    this.restarts++;
    await this.page.close().catch(() => undefined);
    await this.open();
  }

  /**
   * One page call. Resolves or rejects promptly even when the renderer dies mid-call (an evaluate sent to a crashing
   * page can otherwise wait a long time), and gives up after `timeoutMs`.
   */
  async apply(diagrams: PageDiagram[], opts: BatchOptions, timeoutMs: number): Promise<PageResult[]> {
    const page = this.page;
    let fail!: (err: Error) => void;
    const failed = new Promise<never>((_, reject) => (fail = reject));
    const onCrash = () => fail(new Error('the validator page crashed'));
    const timer = setTimeout(() => fail(new Error(`the validator page did not answer within ${timeoutMs} ms`)), timeoutMs);
    page.once('crash', onCrash).once('close', onCrash);
    const call = page.evaluate(([d, o]) => window.canvasgym!.applyBatch(d, o), [diagrams, opts] as const);
    call.catch(() => undefined); // it may settle after the race is lost, when the page is replaced
    try {
      return await Promise.race([call, failed]);
    } finally {
      clearTimeout(timer);
      page.off('crash', onCrash).off('close', onCrash);
    }
  }
}

export class TldrawDriver {
  readonly problems: RequestProblem[] = [];
  private closed = false;

  private constructor(
    private readonly context: BrowserContext,
    private readonly server: PageServer,
    readonly userDataDir: string,
    private readonly slots: Slot[],
    private readonly batchSize: number,
  ) {}

  static async start(opts: DriverOptions = {}): Promise<TldrawDriver> {
    const executablePath = opts.executablePath ?? CHROMIUM_PATH;
    if (!existsSync(executablePath)) {
      throw new Error(`Chromium not found at ${executablePath}: install Debian's build with \`apt-get install -y chromium\``);
    }
    const server = await servePage();
    const userDataDir = await mkdtemp(join(tmpdir(), 'canvasgym-chromium-'));
    let context: BrowserContext;
    try {
      context = await chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args: CHROMIUM_FLAGS });
    } catch (err) {
      await server.close();
      await rm(userDataDir, { recursive: true, force: true });
      throw err;
    }
    const origin = new URL(server.url).origin;
    const slots = Array.from({ length: Math.max(1, opts.pages ?? 1) }, () => new Slot(context, server.url, opts.readyTimeoutMs ?? 60_000));
    const driver = new TldrawDriver(context, server, userDataDir, slots, Math.max(1, opts.batchSize ?? 32));
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      driver.problems.push({ url, problem: 'external' });
      return route.abort('blockedbyclient');
    });
    context.on('requestfailed', (req) => {
      if (new URL(req.url()).origin === origin) driver.problems.push({ url: req.url(), problem: 'failed', detail: req.failure()?.errorText });
    });
    // A persistent context opens with one blank tab: it becomes the first slot's page only after open().
    const blank = context.pages();
    try {
      await Promise.all(slots.map((s) => s.open()));
      await Promise.all(blank.map((p) => p.close()));
      driver.checkRequests();
    } catch (err) {
      await driver.close();
      throw err;
    }
    return driver;
  }

  /** The pages in the pool (tests reach in to crash one). */
  pages(): Page[] {
    return this.slots.map((s) => s.page);
  }

  restarts(): number {
    return this.slots.reduce((n, s) => n + s.restarts, 0);
  }

  /** Generous: a healthy call takes well under 1 s per diagram even with export on a loaded machine. */
  private callTimeoutMs(diagrams: number, opts: BatchOptions): number {
    return 30_000 + diagrams * (opts.png ? 3_000 : 1_000);
  }

  private checkRequests(): void {
    if (this.problems.length > 0) {
      const p = this.problems[0];
      throw new Error(`the validator page made ${this.problems.length} bad request(s), first: ${p.problem} ${p.url}${p.detail ? ` (${p.detail})` : ''}`);
    }
  }

  /**
   * Applies every diagram on a clean editor page and returns the results in order. A diagram that crashes the editor
   * is retried once on a fresh page; if it crashes again its result carries `crashed`.
   */
  async run(diagrams: PageDiagram[], opts: RunOptions = {}): Promise<PageResult[]> {
    if (this.closed) throw new Error('the tldraw driver is closed');
    const { onProgress, ...batchOpts } = opts;
    const results: (PageResult | undefined)[] = new Array(diagrams.length);
    const crashes = new Map<number, number>();
    const queue: number[][] = [];
    for (let i = 0; i < diagrams.length; i += this.batchSize) queue.push(range(i, Math.min(diagrams.length, i + this.batchSize)));
    let done = 0;
    const settle = (i: number, r: PageResult) => {
      results[i] = r;
      onProgress?.(++done, diagrams.length);
    };
    const work = async (slot: Slot) => {
      for (let batch = queue.shift(); batch; batch = queue.shift()) {
        let out: PageResult[];
        try {
          out = await slot.apply(batch.map((i) => diagrams[i]), batchOpts, this.callTimeoutMs(batch.length, batchOpts));
        } catch (err) {
          if (this.closed) throw err;
          // The renderer died (or the page broke): charge the batch's first diagram and try again on a fresh page.
          const first = batch[0];
          const n = (crashes.get(first) ?? 0) + 1;
          crashes.set(first, n);
          if (n > 1) throw new Error(`the validator page failed twice on diagram ${first}: ${(err as Error).message}`);
          await slot.restart();
          queue.unshift(batch);
          continue;
        }
        const crashedAt = out.findIndex((r) => r.crashed !== undefined);
        if (crashedAt === -1) {
          out.forEach((r, k) => settle(batch[k], r));
          continue;
        }
        // Diagrams before the crash were read back fine, but their exports were skipped: redo them when PNGs are wanted.
        // The culprit is retried alone, so that a second crash cannot take good diagrams down with it.
        const before = batch.slice(0, crashedAt);
        const culprit = batch[crashedAt];
        const n = (crashes.get(culprit) ?? 0) + 1;
        crashes.set(culprit, n);
        if (!batchOpts.png) before.forEach((i, k) => settle(i, out[k]));
        if (n > 1) settle(culprit, out[crashedAt]);
        const retry = [batchOpts.png ? before : [], n > 1 ? [] : [culprit], batch.slice(crashedAt + 1)];
        queue.unshift(...retry.filter((b) => b.length > 0));
        await slot.restart();
      }
    };
    await Promise.all(this.slots.map(work));
    this.checkRequests();
    return results as PageResult[];
  }

  /** Closes the browser (every Chromium process of this driver) and the page server; safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.context.close().catch(() => undefined);
    await this.server.close();
    await rm(this.userDataDir, { recursive: true, force: true });
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, k) => from + k);
}
