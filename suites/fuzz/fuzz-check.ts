/**
 * Glue between the fuzzing properties and `check()`: the environment of a check, budgets from the
 * run config (fuzz runs, rate cap, simulator or hardware), observations, restoring writes, and
 * the failure message with the shrunk case.
 */
import type { RunConfig } from '../../runner/config.js';
import { envelopeOf, fail } from '../harness/assert.js';
import type { CheckContext } from '../harness/check.js';
import { restoreValue } from '../harness/writable.js';
import { loadModel } from './model.js';
import type { FuzzEnv } from './properties/common.js';
import { REPLAY_VARIABLE } from './repro.js';
import { failureMessage, searchProperty, searchStats, type FuzzProperty, type FuzzReport } from './runner.js';
import { FuzzStats } from './send.js';
import { forgetEachRun } from '../../client/run-scoped.js';
import { isCostly } from '../../client/tree-reads.js';

/** Failed logins naming the real user a hardware run may make (accounts may lock); env override. */
export const LOGIN_FAILURES_VARIABLE = 'BMC_FUZZ_LOGIN_FAILURES';

/**
 * Time one request may be expected to take, for budgets: the simulator is fast (unless a dialect
 * takes its field server's time per request), BMCs are not.
 */
function perRequestMs(cfg: RunConfig): number {
  const paced = cfg.maxRequestsPerSecond ? 1000 / cfg.maxRequestsPerSecond : 0;
  return Math.max(paced, cfg.embedded ? Math.max(4, cfg.embeddedRequestMs ?? 0) : 1500);
}

/** The safety net of one property: generation, requests and shrinking together. */
export function fuzzTimeLimitMs(cfg: RunConfig, requestsPerRun: number): number {
  const expected = cfg.fuzzRuns * requestsPerRun * perRequestMs(cfg) * 2;
  const floor = cfg.embedded ? 10_000 : 60_000;
  return Math.min(Math.max(expected, floor), 60 * 60_000);
}

/** The vitest timeout of a fuzzing check: the time limit plus room for a request in flight. */
export function fuzzCheckTimeoutMs(cfg: RunConfig, requestsPerRun: number): number {
  return fuzzTimeLimitMs(cfg, requestsPerRun) + cfg.timeoutMs * 2 + 10_000;
}

export async function fuzzEnv(t: CheckContext): Promise<FuzzEnv> {
  const model = await loadModel(t.client, t.ns, t.cfg.treeSnapshot);
  const preferred = `${t.root}/inventory/system`;
  const withAttrs = model.attrPairs.map(([p]) => p);
  const knownGood = withAttrs.includes(preferred) ? preferred : (withAttrs[0] ?? t.root);
  // Same session, own pool: requests that spoil a connection pool go there (see needsSideClient).
  const sideClient = t.client.fork({ cookies: t.client.exportCookies() });
  t.cleanup(() => sideClient.close());
  return {
    client: t.client,
    sideClient,
    model,
    who: { user: t.cfg.user, password: t.cfg.password },
    profile: t.cfg.profile,
    writable: t.cfg.writable,
    stats: new FuzzStats(),
    knownGood,
    loginFailures: loginGuard(t.cfg),
    onSimulator: t.cfg.embedded,
    enumerateCostly: isCostly(t.cfg.rootEnumerateMs ?? 0),
    allowReset: t.cfg.allowFactoryReset,
    acceptedMalformed: [],
  };
}

let guard: { left: number; skipped: number } | undefined;
forgetEachRun(() => (guard = undefined));

/**
 * Failed logins naming the configured user, for the whole run: unlimited on the simulator, 5 on
 * hardware (BMCs may lock an account after repeated failures), or BMC_FUZZ_LOGIN_FAILURES.
 */
function loginGuard(cfg: RunConfig): { left: number; skipped: number } {
  if (!guard) {
    const configured = Number(cfg.fuzzVariables[LOGIN_FAILURES_VARIABLE] ?? Number.NaN);
    const left = Number.isFinite(configured) && configured >= 0 ? configured : cfg.embedded ? Number.POSITIVE_INFINITY : 5;
    guard = { left, skipped: 0 };
  }
  return guard;
}

/**
 * Puts every declared writable attribute back as it was after the check (properties that may
 * write call this first). Values are read from the object's map (endpoint 3), so a target whose
 * attr/ route misreports (EP-4) is still restored; attributes that do not answer are left alone.
 * The cached tree reads stay: the fuzz area runs last and uses them for names and kinds only.
 */
export async function restoreWritablesAfter(t: CheckContext): Promise<void> {
  for (const attr of t.cfg.writable) {
    const res = await t.client.get(attr.path);
    const map = envelopeOf(res)?.data;
    if (res.status !== 200 || map === null || typeof map !== 'object' || !(attr.name in map)) continue;
    const original = (map as Record<string, unknown>)[attr.name];
    t.cleanup(() => restoreValue(t, attr.path, attr.name, original));
  }
}

/**
 * Runs a property within the run's budget and records what ran. Each requirement it judges is
 * searched for a violation; each one found fails that requirement alone, with its shrunk case.
 */
export async function runChecked<T>(t: CheckContext, env: FuzzEnv, p: FuzzProperty<T>): Promise<Array<FuzzReport<T>>> {
  t.observe('seed', t.cfg.seed);
  const timeLimitMs = fuzzTimeLimitMs(t.cfg, p.requestsPerRun);
  const started = performance.now();
  const reports = await searchProperty(p, {
    numRuns: t.cfg.fuzzRuns,
    runSeed: t.cfg.seed,
    timeLimitMs,
    replayed: t.cfg.fuzzVariables[REPLAY_VARIABLE],
  });
  const first = reports[0]!;
  t.observe(`fuzz ${p.key}`, {
    ...searchStats(reports, t.cfg.fuzzRuns),
    replayed: first.replayed ? `${REPLAY_VARIABLE}=${first.replayed}` : undefined,
    seconds: Number(((performance.now() - started) / 1000).toFixed(2)),
    requests: env.stats.summary(),
  });
  for (const report of reports) {
    if (report.failed && report.violation) {
      // Once more, so that the exchange of the shrunk case is in the evidence the report keeps.
      await p.predicate(report.counterexample as T, { violation: () => undefined }).catch(() => undefined);
      t.judge(report.violation.requirement, false, failureMessage(report, t.client.baseUrl));
    } else if (report.failed) {
      fail(`fuzzing property ${p.key}: ${report.abort ?? 'failed'} (seed ${t.cfg.seed})`);
    }
  }
  const last = reports.at(-1)!;
  // A budget that ends the search early is a fact about this run's machine and target speed, not a
  // verdict: recorded, so that the verdict stays the same on a fast or a slow day (the boundary
  // cases always run first, whatever the budget).
  if (last.interrupted && !last.replayed && !last.failed) {
    t.observe(
      `fuzz ${p.key} budget`,
      // The fixed cases run first and count among fast-check's runs: only the generated ones are asked for.
      `the time limit (${Math.round(timeLimitMs / 1000)} s) stopped fuzzing after ${Math.max(0, last.numRuns - (p.examples?.length ?? 0))} of ${t.cfg.fuzzRuns} generated runs`,
    );
  }
  return reports;
}

/** How many of a property's fixed cases (run first, in order) its searches got through: the most any search ran. */
export function examplesRan(reports: ReadonlyArray<FuzzReport<unknown>>, examples: number): number {
  return Math.min(examples, Math.max(0, ...reports.map((r) => r.numRuns)));
}

/**
 * Records one part of the coverage plan (client/plan.ts) a property's fixed cases make: `first` is
 * the part's first case among the property's examples, `cases` how many it has.
 */
export function observePlanPart(
  t: CheckContext,
  key: string,
  reports: ReadonlyArray<FuzzReport<unknown>>,
  part: { first: number; cases: number; digest: string; detail?: string; examples: number },
): void {
  const ran = Math.min(part.cases, Math.max(0, examplesRan(reports, part.examples) - part.first));
  t.observe(key, {
    cases: part.cases,
    ran,
    digest: part.digest,
    ...(part.detail !== undefined && { detail: part.detail }),
  });
}
