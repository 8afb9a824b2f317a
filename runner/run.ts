/** `bmc-conformance run`: the suites against one target, with results.json, JUnit and Allure results. */
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AREAS, areasJudging, requirement, type Area, type Requirement } from '../catalogue/requirements.js';
import type { Profile, RunConfig, TreeSnapshot, WritableAttribute } from './config.js';
import { firstNamed, resolveSettings, targetKind, type SettingFlags } from './settings.js';
import type { EmbeddedOptions, EmbeddedTarget } from './embedded.js';
import { preflight } from './preflight.js';
import { resolveWritables } from './writables.js';
import { checkTftpSource, checkWritables } from './input-check.js';
import { discoverWritables, type Discovery } from './discovery.js';
import { shippedProfiles, type TargetProfile } from './target-profile.js';
import { compareSnapshots, describeTrace, takeObjectsSnapshot, takeSnapshot, type TraceReport } from './trace.js';
import { SessionLedger, type SessionCounts } from '../client/session-ledger.js';
import {
  buildRequirementResults,
  summarize,
  type Fingerprint,
  type Results,
  type RunTrace,
  type TestOutcome,
  nothingJudged,
  coverageShortfall,
  type MinJudged,
  NOTHING_JUDGED_EXIT,
} from '../client/results.js';
import { UsageError } from '../client/usage-error.js';
import { formatSummary, formatTrend, type SummaryContext } from '../report/console-summary.js';
import { namesWritableHint } from '../client/writable-hint.js';
import { cookieSecrets, prepareRun, writeRunReports } from '../report/outputs.js';
import type { PreparedDirectory } from '../report/baseline.js';
import { applyExpectations, digestOf, expectationsFrom, unexpectedFailures, type Expectations } from './expectations.js';
import type { DialectName } from '../simulator/index.js';
import { RunGuard } from './run-guard.js';
import { coveragePlan } from '../client/plan.js';
import { treeReadsLine } from '../client/tree-reads.js';
import { isCostly, measureObjectReads, nearTheLine, planReads, type ReadPlan } from './read-costs.js';

/** How long the closing snapshot may take once the run was interrupted. */
const INTERRUPTED_SNAPSHOT_MS = 5_000;

/** The settings named as in settings.ts (`SettingFlags`): a flag given wins over the target profile. */
export interface RunOptions extends SettingFlags {
  target?: string;
  user: string;
  password: string;
  namespace: string;
  /** The target profile file the namespace came from; absent when --namespace, BMC_NAMESPACE or the default gave it. */
  namespaceFrom?: string;
  insecure: boolean;
  only?: Area[];
  requirements?: string[];
  out: string;
  allowFactoryReset: boolean;
  writable: WritableAttribute[];
  seed?: number;
  /** How checks of whole-tree effects read the tree; undefined: as the measured costs say (runner/read-costs.ts). */
  treeSnapshot?: TreeSnapshot;
  /** Known deviations of the platform. */
  expectations?: Expectations;
  /**
   * The platform's target profile: writables, deletables, TFTP source, timeouts, rate cap,
   * concurrency, event latency and known deviations, used where no flag says otherwise.
   */
  targetProfile?: TargetProfile;
  /** An expected failure that passes (XPASS) fails the run too. */
  strictExpectations?: boolean;
  /** Fewer judged requirements than this is a run that did not cover what it had to (exit 5). */
  minJudged?: MinJudged;
  /** Write the current FAILs as a starting expectations file here, for a reviewer. */
  updateExpectations?: string;
  /** Embedded simulator only: faults to inject (for demonstrating and self-testing the suites). */
  faults: string[];
  /** Embedded simulator only: behave as this server (spec, phosphor-rest, bmcweb). */
  dialect?: DialectName;
  /** Embedded simulator only: a dialect's event latency, failed-upload delay and time per request, shortened for tests. */
  pacing?: EmbeddedOptions['pacing'];
  print?: (line: string) => void;
  /** results.json only: no JUnit, no Allure results (the mutation self-test). */
  lean?: boolean;
  /** Answers longer than this are cut off and reported (default 32 MiB). */
  maxResponseBytes?: number;
}

export interface RunOutcome {
  /** 130 or 143 when SIGINT or SIGTERM stopped the run. */
  /** 0 no unexpected FAIL, 1 one, 5 nothing was judged, 130/143 interrupted. */
  exitCode: 0 | 1 | 5 | 130 | 143;
  results: Results;
  resultsFile: string;
}

export async function runConformance(opts: RunOptions): Promise<RunOutcome> {
  const print = opts.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  if (opts.target && opts.faults.length > 0) {
    throw new UsageError('--fault applies to the embedded simulator only; drop --target or --fault.');
  }
  if (opts.target && opts.dialect) throw new UsageError('--dialect applies to the embedded simulator only; drop --target or --dialect.');
  for (const id of opts.requirements ?? []) requirement(id);
  // vitest and its modules load while the target is checked: a refused target (unreachable, a wrong
  // password, an untrusted certificate) is told without waiting for them, and the process exits
  // before they are done.
  const suites = import('./vitest/vitest-run.js');
  suites.catch(() => undefined);
  const startedAt = new Date();
  // The sessions of the runner's own clients (preflight, main thread), apart from any other run's in this process.
  const ownSessions = new SessionLedger();
  let embedded: EmbeddedTarget | undefined;
  if (!opts.target) {
    // Loaded only for the embedded simulator: a run against a target has no use for its modules.
    const { SIMULATOR_LOG, startEmbeddedTarget } = await import('./embedded.js');
    embedded = await startEmbeddedTarget({
      namespace: opts.namespace,
      user: opts.user,
      password: opts.password,
      faults: opts.faults,
      dialect: opts.dialect,
      pacing: opts.pacing,
      // Its stack traces and 5xx notes go beside the results, never between the verdict lines.
      logFile: join(resolve(opts.out), SIMULATOR_LOG),
    });
  }
  const guard = new RunGuard(print);
  let prepared: PreparedDirectory | undefined;
  try {
    const cfg = buildConfig(opts, embedded);
    const { client, session, sessionProblem, fingerprint, warnings } = await preflight({
      ...cfg,
      readyWithinMs: embedded ? 5_000 : 60_000,
      sessions: ownSessions,
      namespaceFrom: opts.namespaceFrom,
    });
    for (const w of warnings) print(`warn  ${w}`);
    cfg.session = session;
    cfg.sessionProblem = sessionProblem;
    // The embedded simulator's own writables (nothing named) are ours: a fault may remove one.
    const userNamed = !embedded || declaredWritables(opts).length > 0;
    const { writable, unmatched } = await resolveWritables(client, cfg.writable, cfg.namespace);
    cfg.writable = writable;
    for (const w of unmatched) print(`writable ${w} matches nothing on this target: not used`);
    // The user's inputs, before any test: a mistake in them is theirs to correct (exit 2), not a verdict.
    if (!sessionProblem && userNamed) await checkWritables(client, cfg.writable, opts.targetProfile?.file);
    if (cfg.tftp && !embedded) await checkTftpSource(cfg.tftp);
    // Only a destructive run may write what was not named: it looks for the conventional writables.
    let discovery: Discovery | undefined;
    if (cfg.writable.length === 0 && cfg.profile === 'destructive' && !embedded && !sessionProblem) {
      discovery = await discoverWritables(client, cfg.namespace);
      cfg.writable = discovery.writable;
      print(
        `writable (found, each written, read back and restored): ${discovery.writable.map((w) => `${w.path}:${w.name}`).join(', ') || 'none'}`,
      );
      for (const r of discovery.refused) print(`  not used: ${r}`);
    }
    print(
      `bmc-conformance run: ${cfg.target} (${embedded ? 'embedded simulator' : 'target'}), namespace ${cfg.namespace}, profile ${cfg.profile}, seed ${cfg.seed}`,
    );
    print(`target: ${describeFingerprint(fingerprint)}`);
    const outDir = resolve(opts.out);
    prepared = await prepareRun(outDir);
    const areas = opts.only && opts.only.length > 0 ? opts.only : [...AREAS];
    let reporter;
    let leftBehind: TraceReport | undefined;
    let readPlan: ReadPlan | undefined;
    try {
      const snapshotStart = performance.now();
      let before = await takeSnapshot(client, cfg.namespace);
      // The snapshot is a whole-tree enumerate: its cost plans the run's reads.
      let rootEnumerateMs = performance.now() - snapshotStart;
      if (before && nearTheLine(rootEnumerateMs)) {
        const again = performance.now();
        if (await takeSnapshot(client, cfg.namespace)) rootEnumerateMs = Math.min(rootEnumerateMs, performance.now() - again);
      }
      // Only a costly enumerate makes the other read routes worth timing (and the plan stays the simulator's otherwise).
      const objectCost =
        before && isCostly(rootEnumerateMs) ? await measureObjectReads(client, cfg.namespace, Object.keys(before.objects)) : undefined;
      readPlan = before && planReads(cfg, rootEnumerateMs, objectCost, opts.fuzzRuns !== undefined);
      for (const note of readPlan?.notes ?? []) print(`read budget: ${note}`);
      // Leave-no-trace compares like with like: where the run reads the tree object by object, so do its snapshots.
      const byObjects = readPlan?.treeSnapshot === 'objects';
      if (byObjects) before = await takeObjectsSnapshot(client, cfg.namespace);
      // A status line only on a terminal of our own printing: CI logs and callers get plain lines.
      const terminal = !opts.print && process.stdout.isTTY === true;
      const { runSuites } = await suites;
      reporter = await runSuites({
        cfg,
        areas,
        requirements: opts.requirements,
        outDir,
        print,
        lean: opts.lean,
        terminal,
        control: guard.control,
      });
      // After a signal the user is waiting: the comparison gets a few seconds, not the request timeout.
      const take = byObjects ? takeObjectsSnapshot : takeSnapshot;
      const after = before && (await take(client, cfg.namespace, guard.notRunReason ? INTERRUPTED_SNAPSHOT_MS : undefined));
      leftBehind = before && after ? await compareSnapshots(client, before, after) : undefined;
    } finally {
      await guard.closeSessions(client, cfg, ownSessions);
      await client.close();
    }
    // The runner's own session (preflight, main thread) and the suites' (their thread), counted apart.
    const main = ownSessions.counts();
    const sessions = {
      opened: main.opened + reporter.sessions.opened,
      closed: main.closed + reporter.sessions.closed,
    };
    const trace = traceOf(leftBehind, reporter.restoreFailures, sessions, cfg.profile);
    const absentReason = (req: Requirement): string =>
      opts.requirements && !opts.requirements.includes(req.id)
        ? 'not selected (--requirements)'
        : !areas.includes(req.area)
          ? `area ${req.area} not selected (--only)`
          : (guard.notRunReason ?? 'no test of this requirement ran');
    const expectations = mergedExpectations(opts);
    // A requirement's tests may live in several areas (ENV-2's in envelope and fuzz): when one of
    // them did not run or finish, a known failure that did not show is not seen fixed.
    const partial = (id: string): string | undefined => {
      const skipped = areasJudging(id).filter((a) => !areas.includes(a));
      if (skipped.length > 0)
        return `${skipped.length === 1 ? 'the area' : 'the areas'} ${skipped.join(', ')} judging it did not run (--only)`;
      return guard.notRunReason ? 'the run was interrupted' : undefined;
    };
    // A test naming a selected requirement may name others too: only what --requirements names is judged.
    const selected = (o: TestOutcome): TestOutcome =>
      opts.requirements ? { ...o, requirements: o.requirements.filter((id) => opts.requirements!.includes(id)) } : o;
    const outcomes = guard.outcomes(reporter.outcomes).map(selected);
    const requirements = applyExpectations(buildRequirementResults(outcomes, absentReason), expectations, partial);
    const plan = coveragePlan(reporter.observations);
    const results: Results = {
      target: cfg.target,
      ...(cfg.insecure && { insecure: true as const }),
      ...(embedded && { embedded: { dialect: opts.dialect ?? 'spec' } }),
      fingerprint,
      ...(discovery && { discovered: { writable: discovery.writable.map((w) => `${w.path}:${w.name}`), refused: discovery.refused } }),
      namespace: cfg.namespace,
      profile: cfg.profile,
      startedAt: startedAt.toISOString(),
      durationMs: Date.now() - startedAt.getTime(),
      seed: cfg.seed,
      summary: summarize(requirements),
      requirements,
      observations: reporter.observations,
      ...(plan && { plan }),
      ...(expectations && {
        expectations: {
          file: expectations.file,
          platform: expectations.platform,
          ...(expectations.files && { files: expectations.files }),
        },
      }),
      ...(trace && { trace }),
      ...guard.record(),
      treeReads: { ...guard.treeReads(), ...(readPlan && { plan: readPlan }) },
    };
    const resultsFile = join(outDir, 'results.json');
    const report = await writeRunReports({ dir: outDir, results, secrets: [opts.password, ...cookieSecrets(session)], lean: opts.lean });
    const interrupted = results.interrupted !== undefined;
    const tally = reporter.tally();
    const context: SummaryContext = {
      // The selected areas in the order they run (area-sequencer.ts: catalogue order).
      ...(interrupted && { areas: { total: tally.total, selected: AREAS.filter((a) => areas.includes(a)), reached: tally.areas } }),
      writableHintTests: outcomes.filter((o) => o.verdict === 'NOT_TESTED' && namesWritableHint(o.reason)).length,
      // A run against a target that names no profile: the shipped ones name its platform's writables.
      ...(!embedded && !opts.targetProfile && { shippedProfiles: shippedProfiles() }),
    };
    const summary = [...guard.lines(), ...formatSummary(results, reporter.unhandled, context), ...formatTrend(report.trend, interrupted)];
    for (const line of summary) print(line);
    print(treeReadsLine(results.treeReads!));
    print(`results: ${resultsFile}${interrupted ? ' (partial: the run was interrupted)' : ''}`);
    if (!opts.lean) print(`summary: ${join(outDir, 'summary.html')}`);
    if (embedded?.log && embedded.log.lines > 0) print(`simulator log: ${embedded.log.path} (${embedded.log.lines} lines)`);
    if (opts.updateExpectations) {
      const writable = cfg.writable.map((w) => `${w.path}:${w.name}${w.values ? `=${w.values.join('|')}` : ''}`);
      await writeFile(
        opts.updateExpectations,
        expectationsFrom(requirements, { platform: expectations?.platform, writable: cfg.embedded ? [] : writable }),
      );
      print(`expectations to review: ${resolve(opts.updateExpectations)}`);
    }
    for (const line of trace?.lines ?? []) print(`${trace!.verdict === 'FAIL' ? 'FAIL' : 'warn'}  left behind: ${line}`);
    const failed =
      unexpectedFailures(requirements, opts.strictExpectations).length > 0 || reporter.unhandled.length > 0 || trace?.verdict === 'FAIL';
    const shortfall = coverageShortfall(requirements, opts.minJudged);
    if (shortfall) print(`coverage: ${shortfall}`);
    const verdicts = failed ? 1 : nothingJudged(results.summary) || shortfall ? NOTHING_JUDGED_EXIT : 0;
    const exitCode = guard.exitCode(verdicts);
    if (results.interrupted) print(`exit ${exitCode}: the run was interrupted (${results.interrupted.signal})`);
    return { exitCode, results, resultsFile };
  } finally {
    guard.dispose();
    await embedded?.stop();
    // The replaced outputs went in the background; a run never ends with them half removed.
    await prepared?.removed;
  }
}

function describeFingerprint(f: Fingerprint): string {
  return [
    f.server ? `server ${f.server}` : 'no Server header',
    f.firmware ? `firmware ${f.firmware}` : 'no active BMC version shown under software/',
    f.objects !== undefined ? `${f.objects} objects listed` : 'no list of the namespace',
    f.loginForm === 'username-password' ? 'login with {"username", "password"}' : "login with the spec's body",
  ].join(', ');
}

/**
 * What the run left behind: nothing may change in the read-only and safe profiles (FAIL); the
 * destructive profile may leave a trace it could not undo (WARN).
 */
function traceOf(report: TraceReport | undefined, restoreFailures: string[], sessions: SessionCounts, profile: Profile): RunTrace {
  const lines = [
    ...(report ? describeTrace(report) : []),
    ...restoreFailures.map((f) => `a restore failed in ${f}`),
    ...(sessions.opened > sessions.closed
      ? [`${sessions.opened - sessions.closed} of the ${sessions.opened} sessions the run opened were not logged out`]
      : []),
  ];
  const empty = { changed: [], added: [], removed: [], volatile: [] };
  return {
    verdict: lines.length === 0 ? 'PASS' : profile === 'destructive' ? 'WARN' : 'FAIL',
    lines,
    ...(report ?? empty),
    compared: report !== undefined,
    sessions,
  };
}

/** The known deviations of --expectations and of the target profile, as one set. */
function mergedExpectations(opts: RunOptions): Expectations | undefined {
  const p = opts.targetProfile;
  if (!p) return opts.expectations;
  const fromProfile: Expectations = { file: p.file, platform: p.platform, files: digestOf(p), expected: p.expected, writable: [] };
  if (!opts.expectations) return fromProfile;
  const named = opts.expectations.files ?? [];
  return {
    ...opts.expectations,
    platform: opts.expectations.platform ?? p.platform,
    // The same file given as both is named once.
    files: [...named, ...digestOf(p).filter((f) => !named.some((e) => e.sha256 === f.sha256))],
    expected: { ...p.expected, ...opts.expectations.expected },
  };
}

/** The run's configuration: its settings by the one rule (settings.ts), and what the run itself adds. */
/** The writables the user named: by flag, in the expectations file, in the target profile. */
function declaredWritables(opts: RunOptions): WritableAttribute[] {
  return [...opts.writable, ...(opts.expectations?.writable ?? []), ...(opts.targetProfile?.writable ?? [])];
}

export function buildConfig(opts: RunOptions, embedded: EmbeddedTarget | undefined): RunConfig {
  const p = opts.targetProfile;
  const settings = resolveSettings({ kind: targetKind(embedded !== undefined, opts.dialect), flags: opts, profile: p, embedded });
  const { concurrency, ...rest } = settings;
  return {
    ...rest,
    target: embedded?.url ?? opts.target!,
    user: opts.user,
    password: opts.password,
    namespace: opts.namespace,
    // Named by the user (flags, the expectations file, the target profile), each written in turn; the simulator knows its own.
    writable: firstNamed(declaredWritables(opts), embedded?.writable ?? []),
    treeSnapshot: opts.treeSnapshot,
    seed: opts.seed ?? Math.floor(Math.random() * 2 ** 31),
    connections: concurrency,
    embedded: embedded !== undefined,
    embeddedRequestMs: embedded?.typicalRequestMs,
    requestSteps: !opts.lean,
    maxResponseBytes: opts.maxResponseBytes,
    fuzzVariables: Object.fromEntries(
      Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('BMC_FUZZ_') && e[1] !== undefined),
    ),
  };
}
