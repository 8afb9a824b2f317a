/** Thresholds of one run, and what changed against a baseline run. */
import type { LoadFigures } from './autocannon-run.js';

export interface ScenarioResult extends LoadFigures {
  scenario: string;
  path: string;
}

export interface Thresholds {
  /** Every response must be 2xx and no request may error (a load run reads only). */
  maxErrorRate: number;
  minRequestsPerSecond?: number;
  maxP99Ms?: number;
}

export function thresholdFailures(r: ScenarioResult, th: Thresholds): string[] {
  const failures: string[] = [];
  const bad = r.non2xx + r.errors + r.timeouts;
  if (r.requests === 0) failures.push(`${r.scenario}: no request completed`);
  else if (bad / r.requests > th.maxErrorRate) failures.push(`${r.scenario}: ${bad} of ${r.requests} requests failed (non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts})`);
  if (th.minRequestsPerSecond !== undefined && r.requestsPerSecond < th.minRequestsPerSecond) {
    failures.push(`${r.scenario}: ${r.requestsPerSecond.toFixed(0)} requests/s is below ${th.minRequestsPerSecond}`);
  }
  if (th.maxP99Ms !== undefined && r.latencyMs.p99 > th.maxP99Ms) failures.push(`${r.scenario}: p99 ${r.latencyMs.p99} ms is above ${th.maxP99Ms} ms`);
  return failures;
}

export interface Change {
  scenario: string;
  rpsRatio: number;
  p99Ratio: number;
  regression: boolean;
}

/** A regression: throughput down by more than a fifth, or p99 up by more than half. */
export function compareToBaseline(current: ScenarioResult[], baseline: ScenarioResult[]): Change[] {
  const changes: Change[] = [];
  for (const c of current) {
    const b = baseline.find((x) => x.scenario === c.scenario);
    if (!b || b.requestsPerSecond === 0) continue;
    const rpsRatio = c.requestsPerSecond / b.requestsPerSecond;
    const p99Ratio = b.latencyMs.p99 > 0 ? c.latencyMs.p99 / b.latencyMs.p99 : 1;
    changes.push({ scenario: c.scenario, rpsRatio, p99Ratio, regression: rpsRatio < 0.8 || p99Ratio > 1.5 });
  }
  return changes;
}
