/**
 * Where a long run is. The total is the tests that will run, counted when every file was collected
 * (a --requirements or --only selection counts only what it runs); when that count comes in while
 * the first tests run, what would be shown before it is held back and shown once it is known.
 * On a terminal, one status line kept at the bottom: the area, tests done of the total, the time,
 * and the test running now. Otherwise (a log, CI), a plain line when an area ends. The verdict
 * lines of the tests print above either.
 */

/** Where the status line goes (runner/status-line.ts on a terminal; a fake in a test). */
export interface StatusSink {
  show(text: string): void;
}

export interface ProgressOptions {
  print: (line: string) => void;
  /** Keep a status line here; without it, a plain line per area. */
  status?: StatusSink;
  /** Milliseconds, for the times shown (default performance.now). */
  now?: () => number;
}

/** How often the status line's clock moves while a test runs. */
const TICK_MS = 1_000;

export function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export class Progress {
  private readonly now: () => number;
  private readonly started: number;
  private total = 0;
  private done = 0;
  private area?: string;
  private areaStarted = 0;
  private areaTests = 0;
  private lastFinish: number;
  private running?: { name: string; since: number };
  private ticker?: NodeJS.Timeout;
  /** Lines held back while the total is still being counted (see awaitPlan). */
  private held?: Array<string | (() => string)>;

  constructor(private readonly opts: ProgressOptions) {
    this.now = opts.now ?? (() => performance.now());
    this.started = this.now();
    this.lastFinish = this.started;
  }

  /** The total will come later (plan): until then no line or status is shown, only kept in order. */
  awaitPlan(): void {
    this.held ??= [];
  }

  /** The tests that will run: before the first starts, or after awaitPlan, whenever it is known. */
  plan(total: number): void {
    this.total = total;
    this.release();
    if (this.opts.status && !this.ticker) {
      this.ticker = setInterval(() => this.render(), TICK_MS);
      this.ticker.unref();
    }
    this.render();
  }

  /** A test began: on a terminal, the status line names it. */
  started_(area: string, name: string): void {
    if (area !== this.area) this.areaEnds(area);
    this.running = { name, since: this.now() };
    this.render();
  }

  /** A test finished: its verdict line (none for a test that gave no outcome), then the status. */
  finished(area: string, line: string | undefined): void {
    if (area !== this.area) this.areaEnds(area);
    this.done += 1;
    this.areaTests += 1;
    this.running = undefined;
    this.lastFinish = this.now();
    if (line !== undefined) this.print(line);
    this.render();
  }

  /** The run ended: the last area's line; the clock stops. A total never counted is shown as it stands. */
  end(): void {
    this.release();
    this.areaEnds(undefined);
    clearInterval(this.ticker);
    this.ticker = undefined;
  }

  /** "auth: 3/85 tests, 0:02 elapsed; running [AUTH-1] … (1.2 s)" */
  statusText(): string {
    const now = this.now();
    const running = this.running ? `; running ${this.running.name} (${seconds(now - this.running.since)})` : '';
    return `${this.area ?? 'starting'}: ${this.done}/${this.total} tests, ${clock(now - this.started)} elapsed${running}`;
  }

  private areaEnds(next: string | undefined): void {
    if (this.area !== undefined && !this.opts.status && this.areaTests > 0) {
      const area = this.area;
      const tests = this.areaTests;
      const took = seconds(this.lastFinish - this.areaStarted);
      const done = this.done;
      const elapsed = clock(this.lastFinish - this.started);
      // The total is read when the line is shown: a held line gets it once it is known.
      this.print(() => `area ${area}: ${tests} tests in ${took}; ${done} of ${this.total} done, ${elapsed} elapsed`);
    }
    this.area = next;
    this.areaStarted = this.now();
    this.areaTests = 0;
  }

  private render(): void {
    if (!this.held) this.opts.status?.show(this.statusText());
  }

  private print(line: string | (() => string)): void {
    if (this.held) this.held.push(line);
    else this.opts.print(typeof line === 'string' ? line : line());
  }

  /** Shows what was held back, in order, and from now on shows as it comes. */
  private release(): void {
    const held = this.held;
    this.held = undefined;
    for (const line of held ?? []) this.opts.print(typeof line === 'string' ? line : line());
  }
}
