/**
 * `check()` is the only way a suite declares a test: it names the requirement IDs the test checks,
 * the profile it needs, and hands the test a context with the shared client, the schemas and the
 * ways to record a warning, an observation or a NOT_TESTED reason. The verdict reporter reads
 * what lands in the task's meta.
 */
import { test, inject, type TestContext } from 'vitest';
import { areaOfSuiteFile, isRequirementId } from '../../catalogue/requirements.js';
import { profileAllows, type Profile, type RunConfig } from '../../runner/config.js';
import type { BmcClient } from '../../client/http.js';
import { threadSessions } from '../../client/session-ledger.js';
import type { CheckMeta, Finding } from '../../client/results-types.js';
import { validators, type Validators } from '../../schemas/index.js';
import { sharedClient, sharedEvidence } from './session.js';
import { CheckFailure, NotJudged } from './assert.js';
import { describeTest, exchangeSteps, replayAttachments } from '../../report/allure/test.js';
import type { Exchange } from '../../client/evidence.js';
import { networkFaultNote, networkFaultReason, messageOf } from '../../client/errors.js';
import { abandonedBy } from '../../client/run-context.js';
import { forgetEachRun } from '../../client/run-scoped.js';
import { keepWatching } from './watcher.js';

export interface CheckContext {
  cfg: RunConfig;
  ns: string;
  /** `/xyz/{ns}` */
  root: string;
  /** The run's shared, logged-in client. */
  client: BmcClient;
  schemas: Validators;
  /**
   * The target deviates from what the spec shows, without breaking it: verdict WARN for
   * `requirement` (default: the first the check names).
   */
  warn(message: string, requirement?: string): void;
  /**
   * Records a failure of `requirement` and goes on, so that a check naming several requirements
   * judges each of them; the test fails at its end. Returns `ok`.
   */
  judge(requirement: string, ok: boolean, message: string): boolean;
  /** Record behaviour the spec leaves open (never a failure). */
  observe(key: string, value: unknown, requirement?: string): void;
  /** Stop here: the requirement cannot be checked on this target or profile. */
  notTested(reason: string): never;
  /** Run after the test, pass or fail (restoring writes). */
  cleanup(fn: () => Promise<unknown> | unknown): void;
  /**
   * Widens the test's evidence back to `mark` (an evidenceMark() taken earlier): a check that
   * judges a shared measurement shows the requests and event messages of that measurement.
   */
  evidenceFrom(mark: number): void;
  /**
   * The test's evidence is these exchanges, not the requests it sent: a run-wide oracle shows the
   * answers that broke its requirement, whichever test received them.
   */
  showExchanges(exchanges: readonly Exchange[]): void;
}

export interface CheckOptions {
  /** Least profile the test needs; below it the test is NOT_TESTED with the reason. */
  profile?: Profile;
  /** Extra time beyond the per-request timeout (slow targets). */
  timeoutMs?: number;
  /** A further gate: a reason string makes the test NOT_TESTED. */
  unless?: (cfg: RunConfig) => string | undefined;
  /** The check logs in on its own and needs no working session of the run (default: it does). */
  ownSession?: boolean;
}

/** Requests kept as a finding's evidence (subscriptions besides: what they received is the finding). */
const EVIDENCE_PER_TEST = 20;

function isSubscription(x: Exchange): boolean {
  return x.method === 'GET' && /^\/subscribe\/?$/.test(x.url);
}

/** Writes kept beside a test's subscriptions: the changes their events are read against. */
const WRITES_BESIDE_SUBSCRIPTIONS = 60;

/**
 * The last `last` requests; with subscriptions, every subscription however early it opened and
 * the writes (anything but GET) that should have caused its events.
 */
function keptEvidence(all: readonly Exchange[], last: number): Exchange[] {
  const requests = all.filter((x) => !isSubscription(x));
  const shown = new Set(requests.slice(-last));
  if (requests.length < all.length)
    for (const x of requests.filter((r) => r.method !== 'GET').slice(-WRITES_BESIDE_SUBSCRIPTIONS)) shown.add(x);
  return all.filter((x) => shown.has(x) || isSubscription(x));
}

/** A point in the run's evidence; a check judging a measurement made earlier widens to it (evidenceFrom). */
export function evidenceMark(): number {
  return sharedEvidence().mark();
}

/** Requirements a check of this run has failed so far (the suites share one worker, in order). */
const failedSoFar = new Set<string>();
forgetEachRun(() => failedSoFar.clear());

/** What the run has already found: a search may set these aside and look for the rest. */
export function requirementsFailedSoFar(): ReadonlySet<string> {
  return failedSoFar;
}

export function runConfig(): RunConfig {
  return inject('bmc');
}

/** Test title carrying the requirement IDs in the manner of test262: "[EP-5 RULE-1] title". */
export function checkTitle(ids: readonly string[], title: string): string {
  return `[${ids.join(' ')}] ${title}`;
}

export function check(
  ids: string | readonly string[],
  title: string,
  body: (t: CheckContext) => Promise<void>,
  options: CheckOptions = {},
): void {
  const list = typeof ids === 'string' ? [ids] : [...ids];
  for (const id of list) {
    if (!isRequirementId(id)) throw new Error(`check "${title}" names unknown requirement ${id}`);
  }
  const cfg = runConfig();
  // Generous: a slow BMC may take the full request timeout several times within one check.
  const timeout = (options.timeoutMs ?? 0) + cfg.timeoutMs * 3 + cfg.eventTimeoutMs * 2;
  test(checkTitle(list, title), { timeout }, async (ctx) => runCheck(ctx, list, cfg, body, options));
}

async function runCheck(
  ctx: TestContext,
  ids: string[],
  cfg: RunConfig,
  body: (t: CheckContext) => Promise<void>,
  options: CheckOptions,
): Promise<void> {
  const meta: CheckMeta = { requirements: ids, failures: [], warnings: [], observations: [] };
  const own = (requirement: string): string => {
    // A finding belongs to a requirement the test names: traceability runs through titles.
    if (!ids.includes(requirement))
      throw new Error(`check "${ctx.task.name}" attributes a finding to ${requirement}, which it does not name`);
    return requirement;
  };
  ctx.task.meta.bmc = meta;
  if (cfg.requestSteps) await describeTest(ids, cfg.profile, areaOfSuiteFile(ctx.task.file.filepath ?? ctx.task.file.name));

  const notTested = (reason: string): never => {
    ctx.skip(reason);
    throw new Error('unreachable: skip throws');
  };
  if (options.profile && !profileAllows(cfg.profile, options.profile)) {
    notTested(`needs the ${options.profile} profile; this run uses ${cfg.profile}`);
  }
  const gate = options.unless?.(cfg);
  if (gate) notTested(gate);
  if (cfg.sessionProblem && !options.ownSession) notTested(cfg.sessionProblem);
  // The run's watcher sees every change of every check from the first on (suites/oracle judges it).
  if (!cfg.sessionProblem) await keepWatching(`/xyz/${cfg.namespace}`);

  const evidence = sharedEvidence();
  let mark = evidence.mark();
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  let shown: Exchange[] | undefined;
  const t: CheckContext = {
    cfg,
    ns: cfg.namespace,
    root: `/xyz/${cfg.namespace}`,
    client: sharedClient(),
    schemas: validators(cfg.namespace),
    warn: (message, requirement = ids[0]!) => meta.warnings.push({ requirement: own(requirement), message }),
    judge: (requirement, ok, message) => {
      if (!ok) meta.failures.push({ requirement: own(requirement), message });
      return ok;
    },
    observe: (key, value, requirement = ids[0]!) => meta.observations.push({ requirement, key, value }),
    notTested,
    cleanup: (fn) => cleanups.unshift(fn),
    evidenceFrom: (earlier) => {
      mark = Math.min(mark, earlier);
    },
    showExchanges: (exchanges) => {
      shown = exchanges.map((x) => evidence.redact(x));
    },
  };
  let failed = false;
  /** Ended NOT_TESTED: what it sent before stopping is the evidence of why. */
  let notJudged = false;
  try {
    await body(t);
  } catch (err) {
    const findingsBefore = meta.failures.length;
    const abandoned = abandonedBy();
    // A NOT_TESTED after a recorded failure is still a failure.
    notJudged = true;
    if (isSkip(err) && meta.failures.length === 0) throw err;
    const exchanges = evidence.since(mark);
    const unread = prerequisiteOf(err, ids);
    // A prerequisite the network denied says so.
    const prerequisite = unread === undefined ? undefined : `${unread}${networkFaultNote(exchanges)}`;
    // The network under the interface (or the run, interrupted) stopped the test, not the target.
    const cutShort = abandoned && !(err instanceof CheckFailure) ? `not judged: ${abandoned} while this test ran` : undefined;
    const fault = networkFaultReason(err, exchanges) ?? cutShort;
    if (prerequisite !== undefined) {
      // Another requirement's deviation stands in the way: NOT_TESTED, naming it, never a FAIL.
      if (meta.failures.length === 0) notTested(prerequisite);
      meta.unjudged = prerequisite;
    } else if (fault !== undefined) {
      // NOT_TESTED naming the fault, never a FAIL: no statement of the spec was seen broken (the
      // findings made before it stand).
      meta.unjudged = fault;
    } else if (!isSkip(err)) {
      const requirement = err instanceof CheckFailure && err.requirement ? err.requirement : ids[0]!;
      meta.failures.push({ requirement, message: messageOf(err) });
      meta.unjudged = `not judged: the test stopped at a failure of ${requirement}`;
    }
    failed = true;
    // Allure: a finding about the target is a failed assertion; an error of the network or of the
    // harness alone (no finding, no CheckFailure) is "broken".
    const harnessError = findingsBefore === 0 && !(err instanceof CheckFailure);
    throw harnessError
      ? new Error(failureSummary(meta.failures) || meta.unjudged, { cause: err })
      : new CheckFailure(failureSummary(meta.failures));
  } finally {
    const cleanupError = await runCleanups(cleanups);
    // Evidence is redacted as it is read: read only what a finding or the Allure steps show.
    const findings = failed || notJudged || meta.failures.length > 0 || meta.warnings.length > 0 || cleanupError;
    const kept = findings ? (shown ?? keptEvidence(evidence.since(mark), EVIDENCE_PER_TEST)) : [];
    if (kept.length > 0) meta.evidence = kept;
    if (cfg.requestSteps)
      await exchangeSteps(
        shown ?? evidence.since(mark),
        [...meta.failures, ...meta.warnings].map((f) => f.message),
      );
    if (cfg.requestSteps && kept.length > 0) await replayAttachments(kept, cfg.target);
    // A write that could not be restored is a trace the run left, reported for the whole run
    // (results.json "trace"), not a failure of the requirement this check judged.
    if (cleanupError) meta.restoreFailure = cleanupError.message;
    meta.sessions = threadSessions.counts();
    for (const f of meta.failures) failedSoFar.add(f.requirement);
  }
  if (meta.failures.length > 0) throw new CheckFailure(failureSummary(meta.failures));
}

/**
 * Why a check cannot judge its requirements, when an error says so: a NotJudged, or a failure of
 * a requirement the check does not name (a read helper that failed on its own endpoint).
 */
function prerequisiteOf(err: unknown, ids: readonly string[]): string | undefined {
  if (err instanceof NotJudged) return err.message;
  if (err instanceof CheckFailure && err.requirement && !ids.includes(err.requirement)) {
    return `not judged: ${err.message} (see ${err.requirement})`;
  }
  return undefined;
}

/** One line per finding, each led by its requirement: vitest shows it, the reporter reads meta. */
function failureSummary(failures: Finding[]): string {
  return failures.map((f) => `${f.requirement}: ${f.message}`).join('\n');
}

async function runCleanups(cleanups: Array<() => Promise<unknown> | unknown>): Promise<Error | undefined> {
  let first: Error | undefined;
  for (const fn of cleanups) {
    try {
      await fn();
    } catch (err) {
      first ??= err instanceof Error ? err : new Error(String(err));
    }
  }
  return first;
}

/** vitest's ctx.skip() throws an error with this code; it is a NOT_TESTED, not a failure. */
function isSkip(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === 'VITEST_PENDING';
}
