/**
 * What every engine records into: one outcome per request, the whole-run histogram, a per-second
 * series, optional windows (soak) and the early stop when the error rate passes its limit.
 */
import { LatencyHistogram, type LatencySummary, type PercentilePoint } from './histogram.js';

export interface Outcome {
  /** From the intended send time in open loop, from the actual send in closed loop. */
  latencyMs: number;
  /** HTTP status; absent when no answer came. */
  status?: number;
  bytes: number;
  /** Why no answer came. */
  error?: 'timeout' | 'network';
}

export interface SecondPoint {
  /** Seconds since the start, at the end of this second. */
  t: number;
  requests: number;
  failed: number;
  bytesPerSecond: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  max: number;
}

export interface WindowFigures {
  index: number;
  startS: number;
  endS: number;
  requests: number;
  failed: number;
  errorRate: number;
  requestsPerSecond: number;
  latency: LatencySummary;
}

export type StopReason = 'duration' | 'request-cap' | 'error-rate' | 'interrupted';

export interface RunFigures {
  /** Requests answered or failed (each counted once). */
  requests: number;
  ok: number;
  non2xx: number;
  /** Requests that got no answer (timeouts included). */
  errors: number;
  timeouts: number;
  /** non2xx + errors. */
  failed: number;
  /** failed / requests, 0–1. */
  errorRate: number;
  durationS: number;
  requestsPerSecond: number;
  bytes: number;
  bytesPerSecond: number;
  statusCodes: Record<string, number>;
  latency: LatencySummary;
  curve: PercentilePoint[];
  /** The HDR histogram of the whole run, compressed base64 (microseconds). */
  histogram: string;
  series: SecondPoint[];
  windows?: WindowFigures[];
  stoppedBy: StopReason;
  /** Set when stoppedBy is not 'duration': what happened, in one sentence. */
  stopNote?: string;
}

export interface RecorderOptions {
  /** Stop early when failed/requests passes this (0–1), after MIN_REQUESTS_FOR_ABORT requests. */
  abortErrorRate: number;
  /** Split the run into windows of this many seconds (soak). */
  windowS?: number;
  /** Called once when the error rate passes its limit; the engine stops. */
  onAbort?: (note: string) => void;
  /** Called every second with the figures so far (progress line). */
  onSecond?: (progress: Progress) => void;
}

export interface Progress {
  elapsedS: number;
  requests: number;
  failed: number;
  lastSecondRps: number;
  p99: number;
}

const MIN_REQUESTS_FOR_ABORT = 20;

function grouped(n: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

class Counts {
  requests = 0;
  failed = 0;
  bytes = 0;
  readonly latency = new LatencyHistogram();

  add(o: Outcome, failed: boolean): void {
    this.requests++;
    this.bytes += o.bytes;
    if (failed) this.failed++;
    // A request that failed without an answer has no latency, except a timeout: at least that long.
    if (o.status !== undefined || o.error === 'timeout') this.latency.recordMs(o.latencyMs);
  }

  reset(): void {
    this.requests = 0;
    this.failed = 0;
    this.bytes = 0;
    this.latency.reset();
  }
}

export class Recorder {
  private readonly total = new Counts();
  private readonly second = new Counts();
  private readonly window = new Counts();
  private readonly series: SecondPoint[] = [];
  private readonly windows: WindowFigures[] = [];
  private readonly statusCodes: Record<string, number> = {};
  private non2xx = 0;
  private errors = 0;
  private timeouts = 0;
  private startedAt = 0;
  private secondStart = 0;
  private windowStart = 0;
  private ticker?: NodeJS.Timeout;
  private aborted = false;

  constructor(private readonly opts: RecorderOptions) {}

  start(): void {
    this.startedAt = performance.now();
    this.secondStart = this.startedAt;
    this.windowStart = this.startedAt;
    this.ticker = setInterval(() => this.tick(), 1000);
  }

  /** Milliseconds since start(). */
  elapsedMs(): number {
    return performance.now() - this.startedAt;
  }

  /**
   * The stop note of a run the request cap ended: how much of its announced window it measured, so
   * figures of a shorter window are never taken for the whole of it.
   */
  capNote(cap: number, unit: 'requests' | 'writes' | 'uploads', plannedS: number): string {
    const elapsed = (this.elapsedMs() / 1000).toFixed(1);
    const what = unit === 'requests' ? `the request cap of ${grouped(cap)}` : `the cap of ${grouped(cap)} ${unit}`;
    return `stopped at ${what} after ${elapsed} s of ${grouped(plannedS)} s (--max-requests)`;
  }

  get requests(): number {
    return this.total.requests;
  }

  record(o: Outcome): void {
    let failed = false;
    if (o.status !== undefined) {
      this.statusCodes[o.status] = (this.statusCodes[o.status] ?? 0) + 1;
      if (o.status < 200 || o.status > 299) {
        this.non2xx++;
        failed = true;
      }
    } else {
      this.errors++;
      if (o.error === 'timeout') this.timeouts++;
      failed = true;
    }
    this.total.add(o, failed);
    this.second.add(o, failed);
    if (this.opts.windowS) this.window.add(o, failed);
  }

  /** Ends the run: closes the last partial second and window, returns the figures. */
  finish(stoppedBy: StopReason, stopNote?: string): RunFigures {
    if (this.ticker) clearInterval(this.ticker);
    const now = performance.now();
    if (this.second.requests > 0) this.closeSecond(now);
    if (this.opts.windowS && this.window.requests > 0) this.closeWindow(now);
    const durationS = (now - this.startedAt) / 1000;
    const t = this.total;
    return {
      requests: t.requests,
      ok: t.requests - t.failed,
      non2xx: this.non2xx,
      errors: this.errors,
      timeouts: this.timeouts,
      failed: t.failed,
      errorRate: t.requests > 0 ? t.failed / t.requests : 0,
      durationS: round2(durationS),
      requestsPerSecond: durationS > 0 ? round2(t.requests / durationS) : 0,
      bytes: t.bytes,
      bytesPerSecond: durationS > 0 ? Math.round(t.bytes / durationS) : 0,
      statusCodes: this.statusCodes,
      latency: t.latency.summary(),
      curve: t.latency.curve(),
      histogram: t.latency.encode(),
      series: this.series,
      ...(this.opts.windowS && { windows: this.windows }),
      stoppedBy,
      ...(stopNote && { stopNote }),
    };
  }

  private tick(): void {
    const now = performance.now();
    const lastSecondRps = this.closeSecond(now);
    if (this.opts.windowS && now - this.windowStart >= this.opts.windowS * 1000 - 1) this.closeWindow(now);
    const t = this.total;
    this.opts.onSecond?.({
      elapsedS: (now - this.startedAt) / 1000,
      requests: t.requests,
      failed: t.failed,
      lastSecondRps,
      p99: t.latency.percentileMs(99),
    });
    if (!this.aborted && t.requests >= MIN_REQUESTS_FOR_ABORT && t.failed / t.requests > this.opts.abortErrorRate) {
      this.aborted = true;
      const pct = (100 * t.failed) / t.requests;
      this.opts.onAbort?.(
        `stopped early: ${t.failed} of ${t.requests} requests failed (${pct.toFixed(1)} %, the limit is ${(100 * this.opts.abortErrorRate).toFixed(1)} %)`,
      );
    }
  }

  private closeSecond(now: number): number {
    const s = this.second;
    const spanS = Math.max((now - this.secondStart) / 1000, 0.001);
    const rps = s.requests / spanS;
    this.series.push({
      t: round2((now - this.startedAt) / 1000),
      requests: s.requests,
      failed: s.failed,
      requestsPerSecond: round2(rps),
      bytesPerSecond: Math.round(s.bytes / spanS),
      p50: s.latency.percentileMs(50),
      p99: s.latency.percentileMs(99),
      max: s.latency.percentileMs(100),
    });
    s.reset();
    this.secondStart = now;
    return rps;
  }

  private closeWindow(now: number): void {
    const w = this.window;
    const spanS = Math.max((now - this.windowStart) / 1000, 0.001);
    this.windows.push({
      index: this.windows.length,
      startS: round2((this.windowStart - this.startedAt) / 1000),
      endS: round2((now - this.startedAt) / 1000),
      requests: w.requests,
      failed: w.failed,
      errorRate: w.requests > 0 ? w.failed / w.requests : 0,
      requestsPerSecond: round2(w.requests / spanS),
      latency: w.latency.summary(),
    });
    w.reset();
    this.windowStart = now;
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
