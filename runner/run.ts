/** `bmc-conformance run`: the suites against one target, with results.json, JUnit and Allure results. */
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AREAS, requirement, type Area, type Requirement } from '../catalogue/requirements.js';
import type { Profile, RunConfig, TftpSource, WritableAttribute } from './config.js';
import { startEmbeddedTarget, type EmbeddedOptions, type EmbeddedTarget } from './embedded.js';
import { preflight } from './preflight.js';
import { resolveWritables } from './writables.js';
import type { TargetProfile } from './target-profile.js';
import { buildRequirementResults, summarize, type Results } from './results.js';
import { runSuites } from './vitest-run.js';
import { UsageError } from './usage-error.js';
import { formatSummary, formatTrend } from '../report/console-summary.js';
import { cookieSecrets, prepareRun, writeRunReports } from '../report/outputs.js';
import { applyExpectations, expectationsFrom, unexpectedFailures, type Expectations } from './expectations.js';
import type { DialectName } from '../simulator/index.js';
import { RunGuard } from './run-guard.js';

export interface RunOptions {
  target?: string;
  user: string;
  password: string;
  namespace: string;
  profile?: Profile;
  insecure: boolean;
  only?: Area[];
  requirements?: string[];
  out: string;
  timeoutMs?: number;
  eventTimeoutMs?: number;
  quietWindowMs?: number;
  eventWrites?: number;
  allowFactoryReset: boolean;
  tftp?: TftpSource;
  writable: WritableAttribute[];
  fuzzRuns?: number;
  seed?: number;
  maxRequestsPerSecond?: number;
  /** Known deviations of the platform. */
  expectations?: Expectations;
  /**
   * The platform's target profile: writables, deletables, TFTP source, timeouts, rate cap,
   * concurrency, event latency and known deviations, used where no flag says otherwise.
   */
  targetProfile?: TargetProfile;
  /** An expected failure that passes (XPASS) fails the run too. */
  strictExpectations?: boolean;
  /** Write the current FAILs as a starting expectations file here, for a reviewer. */
  updateExpectations?: string;
  /** Embedded simulator only: faults to inject (for demonstrating and self-testing the suites). */
  faults: string[];
  /** Embedded simulator only: behave as this server (spec, phosphor-rest, bmcweb). */
  dialect?: DialectName;
  /** Embedded simulator only: a dialect's event latency and failed-upload delay, shortened for tests. */
  pacing?: EmbeddedOptions['pacing'];
  print?: (line: string) => void;
  /** results.json only: no JUnit, no Allure results (the mutation self-test). */
  lean?: boolean;
  /** Answers longer than this are cut off and reported (default 32 MiB). */
  maxResponseBytes?: number;
  /** How long to wait for a target that went away to come back (default 300 s; 30 s on the embedded simulator). */
  rebootWaitMs?: number;
}

export interface RunOutcome {
  /** 130 or 143 when SIGINT or SIGTERM stopped the run. */
  exitCode: 0 | 1 | 130 | 143;
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
  const startedAt = new Date();
  let embedded: EmbeddedTarget | undefined;
  if (!opts.target) {
    embedded = await startEmbeddedTarget({
      namespace: opts.namespace,
      user: opts.user,
      password: opts.password,
      faults: opts.faults,
      dialect: opts.dialect,
      pacing: opts.pacing,
    });
  }
  const guard = new RunGuard(print);
  try {
    const cfg = buildConfig(opts, embedded);
    const { client, session, sessionProblem } = await preflight(cfg);
    cfg.session = session;
    cfg.sessionProblem = sessionProblem;
    const { writable, unmatched } = await resolveWritables(client, cfg.writable, cfg.namespace);
    cfg.writable = writable;
    for (const w of unmatched) print(`writable ${w} matches nothing on this target: not used`);
    print(`bmc-conformance run: ${cfg.target} (${embedded ? 'embedded simulator' : 'target'}), namespace ${cfg.namespace}, profile ${cfg.profile}, seed ${cfg.seed}`);
    const outDir = resolve(opts.out);
    await prepareRun(outDir);
    const areas = opts.only && opts.only.length > 0 ? opts.only : [...AREAS];
    let reporter;
    try {
      reporter = await runSuites({ cfg, areas, requirements: opts.requirements, outDir, print, lean: opts.lean, control: guard.control });
    } finally {
      await guard.closeSessions(client, cfg);
      await client.close();
    }
    const absentReason = (req: Requirement): string =>
      !areas.includes(req.area)
        ? `area ${req.area} not selected (--only)`
        : opts.requirements && !opts.requirements.includes(req.id)
          ? 'not selected (--requirements)'
          : guard.notRunReason ?? 'no test of this requirement ran';
    const expectations = mergedExpectations(opts);
    const requirements = applyExpectations(buildRequirementResults(guard.outcomes(reporter.outcomes), absentReason), expectations);
    const results: Results = {
      target: cfg.target,
      namespace: cfg.namespace,
      profile: cfg.profile,
      startedAt: startedAt.toISOString(),
      durationMs: Date.now() - startedAt.getTime(),
      seed: cfg.seed,
      summary: summarize(requirements),
      requirements,
      observations: reporter.observations,
      ...(expectations && { expectations: { file: expectations.file, platform: expectations.platform } }),
      ...guard.record(),
    };
    const resultsFile = join(outDir, 'results.json');
    const report = await writeRunReports({ dir: outDir, results, secrets: [opts.password, ...cookieSecrets(session)], lean: opts.lean });
    for (const line of [...guard.lines(), ...formatSummary(results, reporter.unhandled), ...formatTrend(report.trend)]) print(line);
    print(`results: ${resultsFile}`);
    if (!opts.lean) print(`summary: ${join(outDir, 'summary.html')}`);
    if (opts.updateExpectations) {
      const writable = cfg.writable.map((w) => `${w.path}:${w.name}${w.values ? `=${w.values.join('|')}` : ''}`);
      await writeFile(opts.updateExpectations, expectationsFrom(requirements, { platform: expectations?.platform, writable: cfg.embedded ? [] : writable }));
      print(`expectations to review: ${resolve(opts.updateExpectations)}`);
    }
    const failed = unexpectedFailures(requirements, opts.strictExpectations).length > 0 || reporter.unhandled.length > 0;
    return { exitCode: guard.exitCode(failed ? 1 : 0), results, resultsFile };
  } finally {
    guard.dispose();
    await embedded?.stop();
  }
}

/** The known deviations of --expectations and of the target profile, as one set. */
function mergedExpectations(opts: RunOptions): Expectations | undefined {
  const p = opts.targetProfile;
  if (!p) return opts.expectations;
  const fromProfile: Expectations = { file: p.file, platform: p.platform, expected: p.expected, writable: [] };
  if (!opts.expectations) return fromProfile;
  return { ...opts.expectations, platform: opts.expectations.platform ?? p.platform, expected: { ...p.expected, ...opts.expectations.expected } };
}

function buildConfig(opts: RunOptions, embedded: EmbeddedTarget | undefined): RunConfig {
  const onSimulator = embedded !== undefined;
  const p = opts.targetProfile;
  // Named by the user (flags, the expectations file, the target profile); the simulator knows its own.
  const declared = [...opts.writable, ...(opts.expectations?.writable ?? []), ...(p?.writable ?? [])];
  const dialect = opts.dialect && opts.dialect !== 'spec';
  // The latency the profile says to expect bounds the waits for events (learned during the run).
  const latencyMax = p?.eventLatency.maxMs;
  return {
    target: embedded?.url ?? opts.target!,
    user: opts.user,
    password: opts.password,
    namespace: opts.namespace,
    // The embedded simulator is ours to break: everything runs against it.
    profile: opts.profile ?? (onSimulator ? 'destructive' : 'safe'),
    insecure: onSimulator || opts.insecure,
    // Real BMCs can take minutes for an enumerate; the simulator answering slowly is itself a fault.
    // A field dialect answers a failed upload only after its image manager gave up (10-15 s).
    timeoutMs: opts.timeoutMs ?? p?.timeouts.requestMs ?? (onSimulator ? (dialect ? 45_000 : 15_000) : 120_000),
    // Field servers deliver events seconds late; the simulator within milliseconds.
    eventTimeoutMs: opts.eventTimeoutMs ?? p?.timeouts.eventMs ?? (latencyMax ? Math.round(latencyMax * 1.5) : onSimulator ? 3_000 : 10_000),
    quietWindowMs: opts.quietWindowMs ?? p?.timeouts.quietWindowMs ?? (latencyMax ?? (onSimulator ? 300 : 6_000)),
    eventWrites: opts.eventWrites ?? p?.eventWrites ?? (onSimulator ? 10 : 4),
    eventLatency: p?.eventLatency ?? {},
    allowFactoryReset: onSimulator || opts.allowFactoryReset,
    tftp: opts.tftp ?? p?.tftp ?? embedded?.tftp,
    writable: declared.length > 0 ? declared : (embedded?.writable ?? []),
    deletable: p?.deletable ?? [],
    fuzzRuns: opts.fuzzRuns ?? (onSimulator ? 300 : 100),
    seed: opts.seed ?? Math.floor(Math.random() * 2 ** 31),
    maxRequestsPerSecond: opts.maxRequestsPerSecond ?? p?.rps,
    connections: p?.concurrency,
    embedded: onSimulator,
    maxResponseBytes: opts.maxResponseBytes,
    // A BMC takes minutes to boot; the simulator restarts at once.
    rebootWaitMs: opts.rebootWaitMs ?? (onSimulator ? 30_000 : 300_000),
  };
}
