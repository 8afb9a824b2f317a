/**
 * Soak drift: the first and the last full window of a long run compared, so a nightly job sees a
 * slow leak (latency creeping up, errors appearing) that a short run's totals hide.
 */
import type { WindowFigures } from './recorder.js';

export interface WindowPoint {
  startS: number;
  endS: number;
  p50: number;
  p99: number;
  errorRate: number;
  requestsPerSecond: number;
}

export interface Drift {
  windowS: number;
  windows: number;
  first: WindowPoint;
  last: WindowPoint;
  /** Change from the first to the last window, in per cent of the first. */
  p50ChangePct: number;
  p99ChangePct: number;
  rpsChangePct: number;
  /** Change of the error rate, in percentage points. */
  errorRateChangePoints: number;
}

/** Undefined when fewer than two full windows exist. */
export function driftOf(windows: readonly WindowFigures[], windowS: number): Drift | undefined {
  // A last window cut short by the end of the run is not comparable with a full one.
  const full = windows.filter((w) => w.endS - w.startS >= 0.9 * windowS && w.requests > 0);
  if (full.length < 2) return undefined;
  const point = (w: WindowFigures): WindowPoint => ({
    startS: w.startS,
    endS: w.endS,
    p50: w.latency.p50,
    p99: w.latency.p99,
    errorRate: w.errorRate,
    requestsPerSecond: w.requestsPerSecond,
  });
  const first = point(full[0]!);
  const last = point(full[full.length - 1]!);
  return {
    windowS,
    windows: full.length,
    first,
    last,
    p50ChangePct: pct(first.p50, last.p50),
    p99ChangePct: pct(first.p99, last.p99),
    rpsChangePct: pct(first.requestsPerSecond, last.requestsPerSecond),
    errorRateChangePoints: round2(100 * (last.errorRate - first.errorRate)),
  };
}

function pct(from: number, to: number): number {
  return from > 0 ? round2((100 * (to - from)) / from) : 0;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
