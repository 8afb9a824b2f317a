/** `load`: bounded throughput and latency runs; exit 1 when a threshold or the baseline is missed. */
import type { TargetFlags } from './target-flags.js';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { compareToBaseline, thresholdFailures, type ScenarioResult } from '../load/compare.js';
import { formatResult, runLoad } from '../load/run-load.js';
import { DEFAULT_SCENARIOS, SCENARIOS, scenarioByName } from '../load/scenarios.js';
import { startEmbeddedTarget } from '../runner/embedded.js';
import { preflight } from '../runner/preflight.js';
import { UsageError } from '../runner/usage-error.js';

export interface LoadFlags extends TargetFlags {
  connections?: number;
  duration?: number;
  maxRequests?: number;
  scenario?: string;
  baseline?: string;
  minRps?: number;
  maxP99?: number;
  out: string;
}

export async function loadCommand(flags: LoadFlags): Promise<void> {
  const names = flags.scenario ? flags.scenario.split(',').map((s) => s.trim()) : DEFAULT_SCENARIOS;
  const unknown = names.filter((n) => !scenarioByName(n));
  if (unknown.length > 0) throw new UsageError(`Unknown scenario ${unknown.join(', ')}; scenarios are ${SCENARIOS.map((s) => s.name).join(', ')}.`);
  const baseline = flags.baseline ? await readBaseline(flags.baseline) : undefined;
  const embedded = flags.target ? undefined : await startEmbeddedTarget({ namespace: flags.namespace, user: flags.user, password: flags.password, faults: [], tftp: false });
  try {
    const target = embedded?.url ?? flags.target!;
    const { client } = await preflight({ target, user: flags.user, password: flags.password, insecure: flags.insecure || Boolean(embedded), timeoutMs: flags.timeout ?? 120_000 });
    // Hardware gets a gentle default: two connections; the simulator can take more.
    const connections = flags.connections ?? (embedded ? 10 : 2);
    const durationS = flags.duration ?? (embedded ? 3 : 5);
    process.stdout.write(`bmc-conformance load: ${target}, ${connections} connections, ${durationS} s per scenario\n`);
    let results: ScenarioResult[];
    try {
      results = await runLoad({
        baseUrl: target,
        namespace: flags.namespace,
        cookieHeader: client.cookieHeader(),
        scenarios: names.map((n) => scenarioByName(n)!),
        connections,
        durationS,
        maxRequestsPerScenario: flags.maxRequests ?? 100_000,
      }, (r) => process.stdout.write(`${formatResult(r)}\n`));
    } finally {
      await client.logout().catch(() => undefined);
      await client.close();
    }
    const failures = results.flatMap((r) => thresholdFailures(r, { maxErrorRate: 0, minRequestsPerSecond: flags.minRps, maxP99Ms: flags.maxP99 }));
    const changes = baseline ? compareToBaseline(results, baseline) : [];
    for (const c of changes) {
      process.stdout.write(`  vs baseline ${c.scenario.padEnd(15)} throughput x${c.rpsRatio.toFixed(2)}, p99 x${c.p99Ratio.toFixed(2)}${c.regression ? '  REGRESSION' : ''}\n`);
    }
    const outDir = resolve(flags.out);
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, 'load-results.json');
    await writeFile(file, `${JSON.stringify({ target, connections, durationS, startedAt: new Date().toISOString(), results, changes, failures }, null, 2)}\n`);
    for (const f of failures) process.stdout.write(`FAIL ${f}\n`);
    process.stdout.write(`results: ${file}\n`);
    process.exitCode = failures.length > 0 || changes.some((c) => c.regression) ? 1 : 0;
  } finally {
    await embedded?.stop();
  }
}

async function readBaseline(file: string): Promise<ScenarioResult[]> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { results?: ScenarioResult[] };
    if (!Array.isArray(parsed.results)) throw new Error('no results');
    return parsed.results;
  } catch {
    throw new UsageError(`The baseline ${file} is not a load-results.json file.`);
  }
}
