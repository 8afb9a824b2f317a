/** A load run: each scenario in turn over one logged-in session, bounded in time and requests. */
import { autocannonRun } from './autocannon-run.js';
import type { ScenarioResult } from './compare.js';
import type { Scenario } from './scenarios.js';

export interface LoadPlan {
  baseUrl: string;
  namespace: string;
  cookieHeader: string;
  scenarios: readonly Scenario[];
  connections: number;
  durationS: number;
  maxRequestsPerScenario: number;
}

export async function runLoad(plan: LoadPlan, onResult: (r: ScenarioResult) => void = () => {}): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const s of plan.scenarios) {
    const path = s.path(plan.namespace);
    const figures = await autocannonRun({
      url: `${plan.baseUrl}${path}`,
      headers: plan.cookieHeader ? { cookie: plan.cookieHeader } : {},
      connections: plan.connections,
      durationS: plan.durationS,
      maxRequests: plan.maxRequestsPerScenario,
    });
    const result = { scenario: s.name, path, ...figures };
    results.push(result);
    onResult(result);
  }
  return results;
}

export function formatResult(r: ScenarioResult): string {
  const l = r.latencyMs;
  return `  ${r.scenario.padEnd(15)} ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${l.p50} ms  p90 ${l.p90} ms  p99 ${l.p99} ms   ${r.requests} requests, ${r.non2xx} non-2xx, ${r.errors} errors`;
}
