/**
 * Fuzzing throughput: the fuzz properties' own generation, sending and checking, run against a
 * started simulator for a bounded number of runs. Reports requests actually sent per second.
 */
import { BmcClient } from '../client/http.js';
import type { Profile } from '../runner/config.js';
import { simulatorTargetProfile } from '../simulator/index.js';
import { enumerate, list } from '../suites/harness/tree.js';
import { buildModel } from '../suites/fuzz/model.js';
import { anonymousProperty } from '../suites/fuzz/properties/anonymous.js';
import type { FuzzEnv } from '../suites/fuzz/properties/common.js';
import { envelopeProperty } from '../suites/fuzz/properties/envelope.js';
import { loginProperty } from '../suites/fuzz/properties/login.js';
import { serverErrorProperty } from '../suites/fuzz/properties/server-error.js';
import { stabilityProperty } from '../suites/fuzz/properties/stability.js';
import { writeProperty, writeTargets } from '../suites/fuzz/properties/write.js';
import { runProperty, type FuzzProperty } from '../suites/fuzz/runner.js';
import { FuzzStats } from '../suites/fuzz/send.js';

export interface FuzzThroughputOptions {
  namespace?: string;
  user?: string;
  password?: string;
  /** Runs per property (default 2000). */
  runs?: number;
  seed?: number;
  /** Properties run side by side (default 2: one per core of a small machine). */
  concurrency?: number;
  /** Families of generated requests (default read-only; writes come from the write property). */
  profile?: Profile;
}

export interface FuzzThroughput {
  requests: number;
  seconds: number;
  perSecond: number;
  /** Properties that failed on the simulator (none expected on a clean one). */
  failures: string[];
}

export async function measureFuzzThroughput(url: string, opts: FuzzThroughputOptions = {}): Promise<FuzzThroughput> {
  const ns = opts.namespace ?? 'mgmt_project';
  const who = { user: opts.user ?? 'root', password: opts.password ?? '0penBmc' };
  const runs = opts.runs ?? 2000;
  const seed = opts.seed ?? 1;
  const connections = Math.max(4, (opts.concurrency ?? 2) * 2);
  const client = new BmcClient({ baseUrl: url, ...who, insecure: true, timeoutMs: 10_000, connections });
  const loginClient = client.fork();
  let sideClient: BmcClient | undefined;
  try {
    await client.login();
    sideClient = client.fork({ cookies: client.exportCookies() });
    const root = `/xyz/${ns}`;
    const model = buildModel(ns, await list(client, root), await enumerate(client, root));
    const stats = new FuzzStats();
    const env: FuzzEnv = {
      client,
      sideClient,
      model,
      who,
      // Read-only families: the write property is the only writer, so runs side by side cannot
      // change a value under another property's feet.
      profile: opts.profile ?? 'read-only',
      writable: simulatorTargetProfile(ns).writable,
      stats,
      knownGood: `${root}/inventory/system`,
      loginFailures: { left: Number.POSITIVE_INFINITY, skipped: 0 },
      acceptedMalformed: [],
    };
    const targets = await writeTargets(env);
    const properties: Array<FuzzProperty<any>> = [
      envelopeProperty(env),
      serverErrorProperty(env),
      anonymousProperty(env),
      stabilityProperty(env),
      loginProperty(env, loginClient),
      writeProperty(env, targets),
    ];
    const queue = [...properties];
    const started = performance.now();
    const failures: string[] = [];
    const worker = async () => {
      for (let p = queue.shift(); p; p = queue.shift()) {
        const report = await runProperty(p, { numRuns: runs, runSeed: seed, timeLimitMs: 120_000 });
        if (report.failed)
          failures.push(`${p.key}: ${report.violation ? `${report.violation.requirement} ${report.violation.problem}` : report.abort}`);
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency ?? 2 }, worker));
    const seconds = (performance.now() - started) / 1000;
    return { requests: stats.sent, seconds, perSecond: stats.sent / seconds, failures };
  } finally {
    await Promise.all([client.close(), loginClient.close(), sideClient?.close()]);
  }
}
