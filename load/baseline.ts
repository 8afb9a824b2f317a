/**
 * Against a baseline (an earlier load.json): each scenario's latency, throughput, event delivery
 * and capacity compared; a change worse than the tolerance is a regression. Sub-millisecond
 * latencies move by noise alone, so a latency must also have risen by LATENCY_FLOOR_MS.
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from '../client/usage-error.js';
import type { ScenarioReport } from './report/model.js';

export interface Change {
  scenario: string;
  metric: string;
  baseline: number;
  current: number;
  /** current / baseline; null when the baseline had none (failures that are new). */
  ratio: number | null;
  regression: boolean;
}

const LATENCY_FLOOR_MS = 1;

interface Compared {
  metric: string;
  /** true: higher is worse (latency); false: lower is worse (throughput). */
  higherIsWorse: boolean;
  of: (r: ScenarioReport) => number | undefined;
}

const COMPARED: readonly Compared[] = [
  { metric: 'p50', higherIsWorse: true, of: (r) => (r.requests > 0 ? r.latency.p50 : undefined) },
  { metric: 'p99', higherIsWorse: true, of: (r) => (r.requests > 0 ? r.latency.p99 : undefined) },
  // In open loop the rate is what was offered, not what the target achieved.
  { metric: 'rps', higherIsWorse: false, of: (r) => (r.mode === 'closed' ? r.requestsPerSecond : undefined) },
  { metric: 'event_p99', higherIsWorse: true, of: (r) => (r.events && r.events.delivered > 0 ? r.events.latency.p99 : undefined) },
  { metric: 'capacity', higherIsWorse: false, of: (r) => r.capacity?.sustainableRps },
];

export function compareToBaseline(current: readonly ScenarioReport[], baseline: readonly ScenarioReport[], tolerancePct: number): Change[] {
  const changes: Change[] = [];
  const tol = tolerancePct / 100;
  for (const c of current) {
    const b = baseline.find((x) => x.scenario === c.scenario);
    if (!b) continue;
    for (const m of COMPARED) {
      const now = m.of(c);
      const then = m.of(b);
      if (now === undefined || then === undefined || then <= 0) continue;
      const ratio = now / then;
      const regression = m.higherIsWorse ? ratio > 1 + tol && now - then >= LATENCY_FLOOR_MS : ratio < 1 - tol;
      changes.push({
        scenario: c.scenario,
        metric: m.metric,
        baseline: then,
        current: now,
        ratio: Math.round(ratio * 1000) / 1000,
        regression,
      });
    }
    // Failures where the baseline had none are a regression whatever the tolerance.
    if (c.failed > 0 && b.failed === 0)
      changes.push({ scenario: c.scenario, metric: 'failed', baseline: 0, current: c.failed, ratio: null, regression: true });
  }
  return changes;
}

export async function readBaseline(file: string): Promise<ScenarioReport[]> {
  let parsed: { tool?: unknown; results?: unknown; interrupted?: unknown };
  try {
    parsed = JSON.parse(await readFile(file, 'utf8')) as typeof parsed;
  } catch {
    throw new UsageError(`The baseline ${file} cannot be read as JSON.`);
  }
  if (parsed.tool !== 'bmc-conformance load' || !Array.isArray(parsed.results))
    throw new UsageError(`The baseline ${file} is not a load.json file.`);
  // Its figures stop where the run was cut short: any full run would look like a change against them.
  if (parsed.interrupted)
    throw new UsageError(`The baseline ${file} is of an interrupted load run; compare with a run that ran to its end.`);
  return parsed.results as ScenarioReport[];
}

export function describeChange(c: Change): string {
  const ratio = c.ratio === null ? 'new' : `x${c.ratio.toFixed(2)}`;
  return `${c.scenario} ${c.metric}: ${fmt(c.baseline)} -> ${fmt(c.current)} (${ratio})${c.regression ? '  REGRESSION' : ''}`;
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(3);
}
