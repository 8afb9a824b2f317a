/**
 * A load run: each scenario in turn over the run's one session, in the chosen mode (closed loop,
 * fixed rate, ramp or capacity search), then the target-wide capacities. Every value written is
 * restored and read back before the run returns, whatever happened.
 */
import type { BmcClient } from '../client/http.js';
import { profileAllows, type Profile } from '../client/profile.js';
import {
  CAPACITY_DEFAULTS,
  findCapacity,
  maxCapacitySteps,
  type CapacityCriterion,
  type StepFigures,
  type StepStart,
} from './capacity/capacity.js';
import { closedLoop } from './closed-loop.js';
import type { EngineOptions, LoadBounds } from './engine.js';
import { runEventScenario } from './events.js';
import { openLoop, type OpenLoopFigures, type RateStep } from './open-loop.js';
import type { Progress } from './recorder.js';
import type { LoadMode, ScenarioReport } from './report/model.js';
import { fixedSource, weightedSource, type RequestSource } from './request-source.js';
import { isHttpScenario, scenarioByName, type Scenario } from './scenarios.js';
import { measureSessionCapacity, type SessionCapacity } from './capacity/sessions.js';
import { sessionHeaders } from './session-headers.js';
import { driftOf } from './soak.js';
import { measureSubscriberCapacity, type SubscriberCapacity } from './capacity/subscribers.js';
import { runUploadLoop } from './upload-loop.js';
import type { ValueCycle } from './values.js';
import { restoreOriginals, writeMixSource, type RestoreResult } from './write-mix.js';
import { operationCount } from './verify/timeline-svg.js';
import { AnswerSampler, type Violation } from './verify/answers.js';
import { chooseRegister, RegisterVerifier, type RegisterRound } from './verify/register.js';
import type { ReadEndpoint, RegisterHistory } from './verify/history.js';
import { FILTER_REQUIREMENT, streamViolations } from './verify/filters.js';

export type RatePlan =
  | { kind: 'closed' }
  | { kind: 'open'; rate: number }
  | { kind: 'ramp'; from: number; to: number; steps: number }
  | { kind: 'capacity'; startRate: number; maxRate: number; criterion: CapacityCriterion; p99BoundMs?: number };

export interface LoadPlan extends LoadBounds {
  client: BmcClient;
  namespace: string;
  user: string;
  password: string;
  profile: Profile;
  scenarios: readonly Scenario[];
  mix: Readonly<Record<string, number>>;
  /** Value cycles of the writable attributes (prepared and read before the run). */
  cycles: readonly ValueCycle[];
  plan: RatePlan;
  subscribers: number;
  /** Writes per second of the event scenario. */
  eventWriteRate: number;
  eventTimeoutMs: number;
  /** Bounds of the target-wide capacity probes (run with --find-capacity). */
  maxSessions: number;
  maxSubscribers: number;
  signal: AbortSignal;
  /** Progress of the scenario running now. */
  onProgress?: (scenario: string, p: Progress, plannedS: number) => void;
  onScenario?: (r: ScenarioReport) => void;
  /** Each step of a capacity search as it starts. */
  onCapacityStep?: (scenario: string, step: CapacityProgress) => void;
  /** load --verify: judge every Nth answer and run the register's sessions beside each scenario. */
  verify?: { every: number; sessions: number; reads?: readonly ReadEndpoint[] };
}

/** What load --verify found. */
export interface VerifyOutcome {
  every: number;
  /** Answers judged. */
  judged: number;
  /** Requirements judged under load (each FAILs when a violation names it). */
  judgedRequirements: string[];
  violations: Violation[];
  register?: { path: string; name: string; sessions: number; sibling?: string; rounds: RegisterRound[] };
}

export interface CapacityProgress extends StepStart {
  /** At most this many seconds are left of the search (this scenario's and those after it). */
  leftS: number;
}

export interface LoadOutcome {
  results: ScenarioReport[];
  sessions?: SessionCapacity;
  subscribers?: SubscriberCapacity;
  restores: RestoreResult[];
  /** Things the run decided that a reader should know (a ramp stretched, a probe skipped). */
  notes: string[];
  verification?: VerifyOutcome;
}

export async function runLoad(given: LoadPlan): Promise<LoadOutcome> {
  const outcome: LoadOutcome = { results: [], restores: [], notes: [] };
  let plan = given;
  const v = given.verify;
  const sampler = v ? new AnswerSampler(v.every, plan.namespace, [plan.password]) : undefined;
  let verifier: RegisterVerifier | undefined;
  const rounds: RegisterRound[] = [];
  try {
    if (v && sampler) {
      const chosen = registerFor(plan, outcome.notes);
      if (chosen) {
        // The load's own writes leave the register alone: its history must hold every write.
        plan = { ...plan, cycles: plan.cycles.filter((c) => c !== chosen.register) };
        verifier = await RegisterVerifier.open(plan.client, chosen.register, chosen.sibling, v.sessions, v.reads);
      }
      outcome.verification = {
        every: v.every,
        judged: 0,
        judgedRequirements: [],
        violations: [],
        ...(verifier &&
          chosen && {
            register: {
              path: chosen.register.path,
              name: chosen.register.name,
              sessions: v.sessions,
              ...(chosen.sibling && { sibling: chosen.sibling.name }),
              rounds,
            },
          }),
      };
    }
    for (const [i, s] of plan.scenarios.entries()) {
      if (plan.signal.aborted) break;
      sampler?.startScenario(s.name);
      const level = { rps: undefined as number | undefined };
      const current = (): number => level.rps ?? sampler?.servedRps() ?? 0;
      // Conformant capacity search: each step gets its own verification, and its verdict judges the step.
      const perStep = plan.plan.kind === 'capacity' && plan.plan.criterion === 'conformant' && isHttpScenario(s);
      const verifyRound = async <T>(label: string, rate: number | undefined, work: () => Promise<T>): Promise<T> => {
        const prepared = verifier ? await verifier.prepare(plan.eventTimeoutMs) : undefined;
        let over!: () => void;
        const ended = new Promise<void>((resolve) => (over = resolve));
        const round = verifier && prepared ? verifier.round(label, prepared, current, ended, plan.eventTimeoutMs) : undefined;
        try {
          return await work();
        } finally {
          over();
          if (round) {
            const r = await round;
            rounds.push(rate === undefined ? r : { ...r, rate });
            if (sampler) addRoundViolations(sampler, verifier!, r);
          }
        }
      };
      const verifyStep =
        perStep && sampler
          ? async (rate: number, run: () => Promise<OpenLoopFigures>): Promise<StepFigures> => {
              const before = sampler.counts();
              const f = await verifyRound(s.name, rate, run);
              const broken = sampler.found.find((x) => x.count > (before.get(x.requirement) ?? 0));
              return broken ? { ...f, violation: { requirement: broken.requirement, problem: broken.problem } } : f;
            }
          : undefined;
      const scenarioPlan: ScenarioPlan = { ...plan, ...(sampler && { tap: sampler }), level, ...(verifyStep && { verifyStep }) };
      const run = () => runScenario(scenarioPlan, s, outcome.notes, plan.scenarios.slice(i + 1));
      const report = perStep || !verifier ? await run() : await verifyRound(s.name, undefined, run);
      outcome.results.push(report);
      plan.onScenario?.(report);
    }
    if (plan.plan.kind === 'capacity' && !plan.signal.aborted) {
      outcome.subscribers = await measureSubscriberCapacity(plan.client, {
        bound: plan.maxSubscribers,
        namespace: plan.namespace,
        probe: profileAllows(plan.profile, 'safe') ? plan.cycles[0] : undefined,
        eventTimeoutMs: plan.eventTimeoutMs,
        signal: plan.signal,
      });
      // Last: on a BMC with a session limit the probe's logins evict older sessions, the run's own included.
      if (!profileAllows(plan.profile, 'destructive'))
        outcome.notes.push('session capacity not measured: it needs --profile destructive (its logins can evict other sessions)');
      else if (!plan.signal.aborted)
        outcome.sessions = await measureSessionCapacity(plan.client, {
          user: plan.user,
          password: plan.password,
          namespace: plan.namespace,
          bound: plan.maxSessions,
          signal: plan.signal,
        });
    }
  } finally {
    const written = plan.cycles.filter((c) => c.touched);
    if (written.length > 0) outcome.restores = await restoreOriginals(plan.client, written);
    if (verifier) outcome.restores.push(...(await verifier.close()));
    if (outcome.verification && sampler) {
      outcome.verification.judged = sampler.judged;
      outcome.verification.violations = sampler.found;
      outcome.verification.judgedRequirements = [
        ...ANSWER_REQUIREMENTS,
        ...(rounds.length > 0 ? ['EP-8'] : []),
        ...(rounds.some((r) => r.events) ? ['EV-8', 'EV-9'] : []),
        ...Object.entries(FILTER_REQUIREMENT)
          .filter(([kind]) => rounds.some((r) => r.streams?.some((x) => x.kind === kind && !x.closed)))
          .map(([, id]) => id),
      ];
      const closed = [...new Set(rounds.flatMap((r) => (r.streams ?? []).filter((x) => x.closed).map((x) => x.kind)))];
      if (closed.length > 0)
        outcome.notes.push(
          `verify: the target closed the subscriptions filtered on ${closed.join(', ')}: those filters were not judged under load (the events suite judges them idle)`,
        );
    }
  }
  return outcome;
}

/** The endpoints the reads of a (shrunk) history used: "enumerate", "attr and object". */
function readsOf(history: RegisterHistory): string {
  const used = [...new Set(history.operations.filter((o) => o.kind === 'read').map((o) => o.endpoint ?? 'attr'))];
  return used.length === 0 ? 'no read' : used.join(' and ');
}

/** The requirements a register round found broken, added to the run's violations. */
function addRoundViolations(sampler: AnswerSampler, verifier: RegisterVerifier, r: RegisterRound): void {
  if (r.violation)
    sampler.add(
      {
        requirement: 'EP-8',
        problem: `the register ${verifier.path} ${verifier.name} is not linearizable: a PUT's value does not read back as a single copy would (${operationCount(r.violation.operations)} after shrinking; read by ${readsOf(r.violation.history)})`,
      },
      r.violation.firstRps,
    );
  const firstRps = r.events?.firstRps ?? 0;
  for (const p of streamViolations(r.streams ?? [])) sampler.add(p, firstRps);
}

/** What sampled answers are judged against: the envelope, error data and the data shape of each read. */
export const ANSWER_REQUIREMENTS = ['ENV-1', 'ENV-2', 'ENV-3', 'ENV-4', 'ERR-1', 'EP-3', 'EP-4', 'EP-5', 'EP-6', 'EP-7'];

function registerFor(plan: LoadPlan, notes: string[]): ReturnType<typeof chooseRegister> {
  if (!profileAllows(plan.profile, 'safe')) {
    notes.push('verify: the register is not written in the read-only profile (linearizability and events not judged; --profile safe)');
    return undefined;
  }
  const chosen = chooseRegister(plan.cycles);
  if (!chosen) {
    notes.push('verify: no declared writable attribute to use as the register (name one with --writable PATH:ATTR)');
    return undefined;
  }
  const writing = plan.scenarios.some((sc) => sc.kind === 'write-mix' || sc.kind === 'events');
  if (writing && plan.cycles.length < 2) {
    notes.push('verify: the only writable attribute is written by the load itself, so it is not used as the register');
    return undefined;
  }
  return chosen;
}

type ScenarioPlan = LoadPlan & {
  tap?: AnswerSampler;
  level?: { rps: number | undefined };
  /** Conformant capacity search: runs one step under its own verification. */
  verifyStep?: (rate: number, run: () => Promise<OpenLoopFigures>) => Promise<StepFigures>;
};

async function runScenario(plan: ScenarioPlan, s: Scenario, notes: string[], later: readonly Scenario[]): Promise<ScenarioReport> {
  const progress = (plannedS: number) => (p: Progress) => plan.onProgress?.(s.name, p, plannedS);
  const base = { scenario: s.name, description: s.description, connections: plan.connections };
  if (s.kind === 'events') {
    const r = await runEventScenario({
      client: plan.client,
      cycles: plan.cycles,
      subscribers: plan.subscribers,
      writeRate: plan.eventWriteRate,
      durationS: plan.durationS,
      maxWrites: plan.maxRequests,
      eventTimeoutMs: plan.eventTimeoutMs,
      abortErrorRate: plan.abortErrorRate,
      onSecond: progress(plan.durationS),
      signal: plan.signal,
    });
    return { ...base, ...r.writes, mode: 'open', rate: plan.eventWriteRate, connections: 1, events: r.events };
  }
  if (s.kind === 'upload') {
    const r = await runUploadLoop({
      client: plan.client,
      namespace: plan.namespace,
      durationS: plan.durationS,
      maxUploads: plan.maxRequests,
      versionWaitMs: Math.max(plan.eventTimeoutMs, 15_000),
      abortErrorRate: plan.abortErrorRate,
      onSecond: progress(plan.durationS),
      signal: plan.signal,
    });
    return { ...base, ...r.figures, mode: 'closed', connections: 1, uploads: r.uploads };
  }

  const source = requestSource(plan, s);
  const path = source.fixed?.path;
  // The plan carries the run's bounds (LoadBounds) as they are; an engine reads only those.
  const engine = (durationS: number, plannedS = durationS): EngineOptions => ({
    ...plan,
    headers: sessionHeaders(plan.client, plan.namespace),
    source,
    durationS,
    onSecond: progress(plannedS),
    ...(plan.tap && { tap: plan.tap }),
  });
  const withDrift = <T extends ScenarioReport>(r: T): T => {
    const drift = plan.windowS && r.windows ? driftOf(r.windows, plan.windowS) : undefined;
    if (plan.windowS && !drift) notes.push(`${s.name}: fewer than two full ${plan.windowS} s windows, so no drift`);
    return drift ? { ...r, drift } : r;
  };
  const rp = plan.plan;
  switch (rp.kind) {
    case 'closed':
      return withDrift({ ...base, ...(path && { path }), mode: 'closed', ...(await closedLoop(engine(plan.durationS))) });
    case 'open': {
      if (plan.level) plan.level.rps = rp.rate;
      const f = await openLoop(engine(plan.durationS), [{ rate: rp.rate, durationS: plan.durationS }]);
      return withDrift({ ...base, ...(path && { path }), ...openReport(f, 'open'), rate: rp.rate });
    }
    case 'ramp': {
      const steps = rampSteps(rp.from, rp.to, rp.steps, plan.durationS);
      const total = steps.reduce((t, x) => t + x.durationS, 0);
      if (total > plan.durationS)
        notes.push(`${s.name}: the ramp's ${rp.steps} steps last 1 s each at least, so it ran ${total} s instead of ${plan.durationS} s`);
      const f = await openLoop(engine(total), steps);
      return withDrift({ ...base, ...(path && { path }), ...openReport(f, 'ramp') });
    }
    case 'capacity': {
      const byRate = new Map<number, OpenLoopFigures>();
      const search = {
        ...CAPACITY_DEFAULTS,
        startRate: rp.startRate,
        maxRate: rp.maxRate,
        criterion: rp.criterion,
        ...(rp.p99BoundMs !== undefined && { p99BoundMs: rp.p99BoundMs }),
        signal: plan.signal,
      };
      const stepS = plan.durationS + search.pauseMs / 1000;
      const laterS = later.reduce((t, x) => t + (isHttpScenario(x) ? maxCapacitySteps(search) * stepS : plan.durationS), 0);
      const capacity = await findCapacity(
        async (rate) => {
          if (plan.level) plan.level.rps = rate;
          const run = () => openLoop(engine(plan.durationS), [{ rate, durationS: plan.durationS }]);
          const f = plan.verifyStep ? await plan.verifyStep(rate, run) : await run();
          byRate.set(rate, f);
          return f;
        },
        {
          ...search,
          onStep: (step) =>
            plan.onCapacityStep?.(s.name, { ...step, leftS: Math.ceil(plan.durationS + (step.bound - step.index) * stepS + laterS) }),
        },
      );
      // The figures shown for the scenario are those of the highest sustained step (or the first step).
      const shown = byRate.get(capacity.sustainableRps) ?? byRate.get(capacity.steps[0]!.rate)!;
      return {
        ...base,
        ...(path && { path }),
        ...openReport(shown, 'capacity'),
        rate: capacity.sustainableRps || capacity.steps[0]!.rate,
        capacity,
      };
    }
  }
}

function openReport(f: OpenLoopFigures, mode: LoadMode): Omit<ScenarioReport, 'scenario' | 'description' | 'connections'> {
  return { ...f, mode };
}

function requestSource(plan: LoadPlan, s: Scenario): RequestSource {
  if (s.kind === 'write-mix') return writeMixSource(plan.cycles);
  if (s.kind === 'read-mix') {
    return weightedSource(
      Object.entries(plan.mix).map(([name, weight]) => ({
        req: { method: 'GET' as const, path: scenarioByName(name)!.path!(plan.namespace) },
        weight,
      })),
    );
  }
  return fixedSource({ method: 'GET', path: s.path!(plan.namespace) });
}

/** `from` to `to` in `n` equal steps over `durationS` (each step at least 1 s). */
export function rampSteps(from: number, to: number, n: number, durationS: number): RateStep[] {
  const stepS = Math.max(1, durationS / n);
  return Array.from({ length: n }, (_, k) => ({
    rate: n === 1 ? from : Math.round((from + ((to - from) * k) / (n - 1)) * 100) / 100,
    durationS: stepS,
  }));
}
