/**
 * Mutation self-test of the suites. For each simulator fault, a whole conformance run (every
 * area; the stateful area only for its own faults and the clean simulator) against a simulator
 * with that fault must
 *
 * - FAIL the requirement the fault breaks (WARN for faults that only deviate from an example):
 *   recall, the share of faults killed;
 * - FAIL nothing else but the fault's declared knock-ons, each with its one-line reason:
 *   precision, the share of faults with no undeclared FAIL.
 *
 * The clean simulator must give no FAIL and no WARN. Runs go to a few worker processes (each
 * runs its faults one after another against its own in-process simulator), with one seed for all.
 */
import { headline } from '../../client/headline.js';
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { AREAS, areasJudging, failableRequirements, type Area } from '../../catalogue/requirements.js';
import { FAULTS, type FaultInfo } from '../../simulator/faults.js';
import type { WorkerAnswer, WorkerJob } from './worker.js';
import { faultCoverage, formatFaultCoverage } from './fault-coverage.js';
import { sitePairs, type SitePair } from './site-runs.js';
import { packageRoot } from '../../client/package-root.js';
import type { Verdict } from '../../client/results.js';

export interface FaultOutcome {
  fault: string;
  requirement: string;
  /** The verdict the fault must produce for its requirement. */
  expected: 'FAIL' | 'WARN' | 'PASS';
  verdict: Verdict | 'ERROR';
  killed: boolean;
  reason?: string;
  /** Requirements that FAILed besides the fault's own and its declared knock-ons. */
  undeclared: Array<{ id: string; reason?: string }>;
  /** Declared knock-ons that did FAIL. */
  knockOns: string[];
  /** Declared knock-ons that did not FAIL this time (listed, not held against the fault). */
  unseenKnockOns: string[];
  /** True when a failing test of the fault's own requirement shows no evidence (no request, no subscription). */
  bare: boolean;
  seconds: number;
}

export interface MutationReport {
  outcomes: FaultOutcome[];
  /** MUST and SAFETY requirements no fault breaks. */
  uncovered: string[];
  clean: { fails: string[]; warns: string[]; exitCode: number; seconds: number; error?: string };
  /** Faults killed, of all faults. */
  recall: number;
  /** Faults with no undeclared FAIL, of all faults. */
  precision: number;
  seed: number;
  scope: MutationScope;
  seconds: number;
}

export type MutationScope = 'judging' | 'all';

export interface MutationOptions {
  /** Worker processes (default 2: the machines this runs on have two cores). */
  concurrency?: number;
  /**
   * `judging` (default): each fault runs only the tests that judge its requirement and its declared
   * knock-ons, in their areas, so precision is held within them; `all`: every area (the stateful area only for its
   * own faults), so precision is held across the whole run.
   */
  scope?: MutationScope;
  faults?: string[];
  /**
   * The answer and event faults at their sites (site-runs.ts), each in its site's area and the oracle:
   * `all` every pair, `none` (default) no pair; a list of pair names runs those.
   */
  sites?: 'all' | 'none' | readonly string[];
  seed?: number;
  onOutcome?: (o: FaultOutcome) => void;
}

/** Settings of every run: the simulator answers in milliseconds, so waits can be short. */
const RUN_SETTINGS: Omit<WorkerJob, 'faults' | 'seed'> = {
  fuzzRuns: 60,
  eventTimeoutMs: 1500,
  quietWindowMs: 200,
  eventWrites: 4,
};

/**
 * The areas a fault's run needs. `all`: every area but the stateful one, unless the fault is the
 * stateful area's. `judging`: the areas with a test of its requirement or a declared knock-on.
 */
export function faultAreas(fault: FaultInfo, scope: MutationScope): Area[] | undefined {
  const withStateful = (areas: readonly Area[]) => areas.filter((a) => a !== 'stateful' || fault.stateful);
  if (scope === 'all') return fault.stateful ? undefined : withStateful(AREAS);
  const judging = new Set([fault.requirement, ...Object.keys(fault.knockOn ?? {})].flatMap((id) => areasJudging(id)));
  return withStateful(AREAS.filter((a) => judging.has(a)));
}

/**
 * Rough cost of an area in a mutation run, against 1 for the light ones: the stateful and event
 * areas wait out windows, uploads and fuzzing do more work.
 */
const AREA_COST: Partial<Record<Area, number>> = { stateful: 8, events: 5, upload: 3, fuzz: 2 };

function jobCost(job: WorkerJob): number {
  const areas: readonly Area[] = job.only ?? AREAS;
  let sum = 0;
  for (const area of areas) sum += AREA_COST[area] ?? 1;
  return sum;
}

/** A pool of worker processes taking jobs from one queue, costliest first so none is left to run alone at the end. */
async function runJobs(jobs: WorkerJob[], concurrency: number, onAnswer: (a: WorkerAnswer) => void): Promise<void> {
  const worker = join(packageRoot(), 'dist', 'runner', 'mutation', 'worker.js');
  const queue = [...jobs].sort((a, b) => jobCost(b) - jobCost(a));
  const drain = async (): Promise<void> => {
    const child: ChildProcess = fork(worker, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    // A job sent to a worker that has just died fails with EPIPE, emitted here: its 'exit' reports the job.
    child.on('error', () => undefined);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    try {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const current = job;
        const answer = await new Promise<WorkerAnswer>((resolve) => {
          const onExit = (code: number | null) =>
            resolve({
              faults: current.faults,
              error: `the worker exited (${code}): ${stderr.trim().split('\n').at(-1) ?? ''}`,
              seconds: 0,
            });
          child.once('exit', onExit);
          child.once('message', (m: WorkerAnswer) => {
            child.off('exit', onExit);
            resolve(m);
          });
          child.send(current);
        });
        onAnswer(answer);
        if (answer.error?.startsWith('the worker exited')) return;
      }
    } finally {
      // A worker that died is disconnected already: disconnecting again would throw in the parent.
      if (child.connected) child.disconnect();
      child.kill();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, drain));
}

function judge(fault: FaultInfo, answer: WorkerAnswer): FaultOutcome {
  const expected = fault.verdict ?? 'FAIL';
  const knock = fault.knockOn ?? {};
  const verdicts = answer.verdicts ?? {};
  const own = verdicts[fault.requirement];
  const fails = Object.entries(verdicts).filter(([, v]) => v.verdict === 'FAIL');
  // A benign fault (PASS) owns no FAIL: every one counts against precision.
  const others = fails.filter(([id]) => expected === 'PASS' || id !== fault.requirement);
  const verdict = answer.error ? 'ERROR' : (own?.verdict ?? 'ERROR');
  return {
    fault: fault.name,
    requirement: fault.requirement,
    expected,
    verdict,
    killed: expected === 'PASS' ? verdict !== 'ERROR' && fails.length === 0 : verdict === expected,
    reason: answer.error ?? own?.reason,
    undeclared: others.filter(([id]) => !(id in knock)).map(([id, v]) => ({ id, reason: v.reason })),
    knockOns: others.filter(([id]) => id in knock).map(([id]) => id),
    unseenKnockOns: Object.keys(knock).filter((id) => verdicts[id]?.verdict !== 'FAIL'),
    bare: (own?.bare ?? 0) > 0,
    seconds: answer.seconds,
  };
}

export async function runMutation(opts: MutationOptions = {}): Promise<MutationReport> {
  const started = Date.now();
  const seed = opts.seed ?? 20261123;
  const pairs = sitePairs().filter((p) => opts.sites === 'all' || (Array.isArray(opts.sites) && opts.sites.includes(p.name)));
  const chosen: FaultInfo[] = [...FAULTS.filter((f) => !opts.faults || opts.faults.includes(f.name)), ...pairs];
  const outcomes = new Map<string, FaultOutcome>();
  let clean: MutationReport['clean'] = { fails: [], warns: [], exitCode: -1, seconds: 0 };
  const scope = opts.scope ?? 'judging';
  // The clean run first in the queue, always whole: it is the baseline the others are read against.
  // The stateful area, the costliest per run, runs for its own faults and the clean simulator.
  const jobs: WorkerJob[] = [
    { faults: [], seed, ...RUN_SETTINGS },
    ...chosen.map((f) => {
      // A pair runs its site's area whole, whatever the scope: the oracle judges what that area receives.
      if ('area' in f) return { faults: [f.name], seed, ...RUN_SETTINGS, only: [(f as SitePair).area] };
      if (f.reachedBy && scope === 'judging') return { faults: [f.name], seed, ...RUN_SETTINGS, only: [f.reachedBy] };
      const only = faultAreas(f, scope);
      // Judging scope: only the tests that name the requirement or a knock-on (a fifth less CPU per run).
      const requirements = scope === 'judging' ? [f.requirement, ...Object.keys(f.knockOn ?? {})] : undefined;
      return { faults: [f.name], seed, ...RUN_SETTINGS, ...(only && { only }), ...(requirements && { requirements }) };
    }),
  ];
  await runJobs(jobs, opts.concurrency ?? 2, (answer) => {
    if (answer.faults.length === 0) {
      const entries = Object.entries(answer.verdicts ?? {});
      clean = {
        fails: entries.filter(([, v]) => v.verdict === 'FAIL').map(([id, v]) => `${id}: ${v.reason ?? ''}`),
        warns: entries.filter(([, v]) => v.verdict === 'WARN').map(([id, v]) => `${id}: ${v.reason ?? ''}`),
        exitCode: answer.exitCode ?? -1,
        seconds: answer.seconds,
        error: answer.error,
      };
      return;
    }
    const fault = chosen.find((f) => f.name === answer.faults[0])!;
    const outcome = judge(fault, answer);
    outcomes.set(fault.name, outcome);
    opts.onOutcome?.(outcome);
  });
  const ordered = chosen.map((f) => outcomes.get(f.name) ?? judge(f, { faults: [f.name], error: 'never ran', seconds: 0 }));
  const covered = new Set(FAULTS.filter((f) => (f.verdict ?? 'FAIL') === 'FAIL').map((f) => f.requirement));
  const share = (n: number) => (ordered.length === 0 ? 0 : n / ordered.length);
  return {
    outcomes: ordered,
    uncovered: failableRequirements()
      .map((r) => r.id)
      .filter((id) => !covered.has(id)),
    clean,
    recall: share(ordered.filter((o) => o.killed).length),
    precision: share(ordered.filter((o) => o.undeclared.length === 0 && o.verdict !== 'ERROR').length),
    seed,
    scope,
    seconds: (Date.now() - started) / 1000,
  };
}

const percent = (x: number) => `${(x * 100).toFixed(1)} %`;

export function formatMutationReport(report: MutationReport): string {
  const lines = [
    '| fault | requirement | verdict | killed | other FAILs |',
    '|---|---|---|---|---|',
    ...report.outcomes.map((o) => {
      const killed = o.killed ? (o.bare ? 'killed, **without evidence**' : 'killed') : `**survived** (${headline(o.reason ?? '')})`;
      const knock = o.knockOns.map((id) => `${id} (declared)`);
      const undeclared = o.undeclared.map((u) => `**${u.id} undeclared**: ${headline(u.reason ?? '')}`);
      return `| ${o.fault} | ${o.requirement} | ${o.verdict} | ${killed} | ${[...knock, ...undeclared].join('; ') || '—'} |`;
    }),
    '',
    `recall: ${percent(report.recall)} (${report.outcomes.filter((o) => o.killed).length} of ${report.outcomes.length} faults killed)`,
    `precision: ${percent(report.precision)} (${report.outcomes.filter((o) => o.undeclared.length === 0 && o.verdict !== 'ERROR').length} of ${report.outcomes.length} faults FAIL nothing but their requirement and declared knock-ons)`,
    `evidence: ${report.outcomes.filter((o) => o.killed && !o.bare).length} of ${report.outcomes.filter((o) => o.killed).length} killing verdicts carry their requests or subscriptions`,
    `MUST/SAFETY requirements without a fault: ${report.uncovered.length === 0 ? 'none' : report.uncovered.join(', ')}`,
    `clean simulator: exit ${report.clean.exitCode}, ${report.clean.fails.length} FAIL, ${report.clean.warns.length} WARN (${report.clean.seconds.toFixed(1)} s)`,
    `areas: ${report.scope === 'all' ? 'every area in every run (precision across the whole run)' : 'each fault in the tests judging its requirement and knock-ons (precision within them; `npm run mutation` holds it across every area)'}`,
    `seed ${report.seed}; wall time: ${report.seconds.toFixed(1)} s`,
    '',
    '## Fault model: the operators covered per requirement',
    '',
    formatFaultCoverage(faultCoverage(), new Set(report.outcomes.filter((o) => o.killed).map((o) => o.fault))),
  ];
  return lines.join('\n');
}
