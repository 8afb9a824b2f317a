/**
 * Where a long run is. The total is the tests that will run, counted when every file was collected
 * before the first test (a --requirements or --only selection counts only what it runs).
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

/** What became of an area's tests: those that ran, and those an interruption kept from starting. */
export interface AreaTally {
  area: string;
  ran: number;
  notRun: number;
}

export class Progress {
  private readonly now: () => number;
  private readonly started: number;
  private total = 0;
  private done = 0;
  private area?: string;
  private areaStarted = 0;
  private areaTests = 0;
  private areaNotRun = 0;
  private readonly tallies: AreaTally[] = [];
  /** The last verdict, or the plan before the first: where the next area's time starts. */
  private lastFinish: number;
  private running?: { name: string; since: number };
  private ticker?: NodeJS.Timeout;

  constructor(private readonly opts: ProgressOptions) {
    this.now = opts.now ?? (() => performance.now());
    this.started = this.now();
    this.lastFinish = this.started;
  }

  /** The tests that will run, before the first starts. */
  plan(total: number): void {
    this.total = total;
    // The files are collected: what comes next (the first file's hooks, its first test) is the first area's.
    this.lastFinish = this.now();
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
    if (line !== undefined) this.opts.print(line);
    this.render();
  }

  /**
   * A test the interruption kept from starting: no verdict line, and not counted done. An area
   * none of whose tests ran gets no line (the run's summary names it among those not reached).
   */
  notRun(area: string): void {
    if (area !== this.area) this.areaEnds(area);
    this.areaNotRun += 1;
    this.running = undefined;
    this.render();
  }

  /** The tests planned, and each area reached so far (its tests run or not), in run order. */
  tally(): { total: number; areas: readonly AreaTally[] } {
    return { total: this.total, areas: this.tallies };
  }

  /** The run ended: the last area's line; the clock stops. */
  end(): void {
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
    if (this.area !== undefined) this.tallies.push({ area: this.area, ran: this.areaTests, notRun: this.areaNotRun });
    if (this.area !== undefined && !this.opts.status && this.areaTests > 0) {
      const area = this.area;
      const tests = this.areaTests;
      const took = seconds(this.lastFinish - this.areaStarted);
      const elapsed = clock(this.lastFinish - this.started);
      // An area the interruption cut short says how far it got, not that it was done.
      const what = this.areaNotRun > 0 ? `cut short after ${tests} of ${tests + this.areaNotRun} tests` : `${tests} tests`;
      this.opts.print(`area ${area}: ${what} in ${took}; ${this.done} of ${this.total} done, ${elapsed} elapsed`);
    }
    // An area's time runs from the previous area's last verdict (the first area's: from the plan):
    // its hooks and a first test whose start was reported late (or not at all) are its own, not nobody's.
    this.areaStarted = this.lastFinish;
    this.area = next;
    this.areaTests = 0;
    this.areaNotRun = 0;
  }

  private render(): void {
    this.opts.status?.show(this.statusText());
  }
}
