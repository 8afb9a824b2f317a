/**
 * Where a long run is: on a terminal, one status line kept at the bottom (area, tests done of
 * those collected so far, elapsed time, the slowest test so far); in CI (no terminal), a plain
 * line when an area ends. The verdict lines of the tests print above it either way.
 */
export interface ProgressOptions {
  print: (line: string) => void;
  /** Rewrite a status line in place (a terminal); otherwise plain lines only. */
  tty: boolean;
  write?: (text: string) => void;
}

function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export class Progress {
  private readonly started = performance.now();
  private collected = 0;
  private done = 0;
  private area?: string;
  private areaStarted = 0;
  private areaTests = 0;
  private slowest?: { ms: number; name: string };
  private lastFinish = performance.now();
  private statusShown = false;

  constructor(private readonly opts: ProgressOptions) {}

  /** Tests of a file became known. */
  collected_(count: number): void {
    this.collected += count;
    this.render();
  }

  /** A test finished: its verdict line, then the status. */
  finished(area: string, name: string, durationMs: number | undefined, line: string): void {
    if (area !== this.area) this.areaEnds(area);
    this.done += 1;
    this.areaTests += 1;
    if (durationMs !== undefined && durationMs > (this.slowest?.ms ?? 0)) this.slowest = { ms: durationMs, name };
    this.lastFinish = performance.now();
    this.clearStatus();
    this.opts.print(line);
    this.render();
  }

  /** The run ended: the last area's line, and the status line cleared. */
  end(): void {
    this.areaEnds(undefined);
    this.clearStatus();
  }

  private areaEnds(next: string | undefined): void {
    if (this.area !== undefined && !this.opts.tty) {
      this.opts.print(
        // Up to its last test's end: the line is printed only once the next area's first test finished.
        `area ${this.area}: ${this.areaTests} tests in ${((this.lastFinish - this.areaStarted) / 1000).toFixed(1)} s; ${this.done} of ${this.collected} done, ${clock(this.lastFinish - this.started)} elapsed`,
      );
    }
    this.area = next;
    // The area began when the last test of the one before finished.
    this.areaStarted = this.lastFinish;
    this.areaTests = 0;
  }

  private render(): void {
    if (!this.opts.tty || !this.opts.write) return;
    const slow = this.slowest ? `; slowest ${(this.slowest.ms / 1000).toFixed(1)} s (${this.slowest.name.slice(0, 40)})` : '';
    const text = `${this.area ?? 'starting'}: ${this.done}/${this.collected} tests, ${clock(performance.now() - this.started)} elapsed${slow}`;
    this.opts.write(`\r\x1b[2K${text.slice(0, (process.stdout.columns ?? 120) - 1)}`);
    this.statusShown = true;
  }

  private clearStatus(): void {
    if (this.statusShown && this.opts.write) this.opts.write('\r\x1b[2K');
    this.statusShown = false;
  }
}
