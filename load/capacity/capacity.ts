/**
 * Capacity search: open-loop steps at a rising rate (doubling) until a step is not sustained, then
 * bisection between the last good and the first bad rate. The answer is the highest rate the target
 * sustained. A step is not sustained when a request fails, answers fall behind the offered rate, the
 * generator sends late, and by the criterion: `p99` (p99 above its bound) or `conformant` (the
 * step's verification found a violation; p99 bounds it too only when a bound is given). Every step
 * is bounded like any other run; an interrupted search ends at once with what it has.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { OpenLoopFigures } from '../open-loop.js';

export interface CapacitySearchOptions {
  startRate: number;
  /** Never offer more than this (the search then reports "at least maxRate"). */
  maxRate: number;
  /** `p99` (default): the bound applies. `conformant`: a violation ends the climb; the bound applies only when given. */
  criterion?: CapacityCriterion;
  p99BoundMs?: number;
  /** Bisection stops when the bracket is narrower than this share of its upper end. */
  precision: number;
  maxBisections: number;
  /** Quiet time between steps, so one step's backlog does not spill into the next. */
  pauseMs: number;
  signal?: AbortSignal;
  /** Told as each step starts, so a person watching knows how far the search is. */
  onStep?: (step: StepStart) => void;
}

export type CapacityCriterion = 'p99' | 'conformant';

/** A step's figures and, when the step was verified, the first requirement it broke. */
export type StepFigures = OpenLoopFigures & { violation?: StepViolation };

export interface StepViolation {
  requirement: string;
  problem: string;
}

export interface StepStart {
  /** 1 for the first step. */
  index: number;
  /** The most steps the search can take, as far as it knows now. */
  bound: number;
  phase: CapacityStep['phase'];
  rate: number;
}

export interface CapacityStep {
  phase: 'climb' | 'bisect';
  rate: number;
  requests: number;
  failed: number;
  p50: number;
  p99: number;
  sendLagP99: number;
  sustained: boolean;
  /** Conformant criterion: the requirement the step's verification found broken. */
  violation?: StepViolation;
  /** Why the step was not sustained. */
  why?: string;
  /** Cut short by the user: the step proves nothing either way. */
  interrupted?: true;
  /** The request cap ended the step before its window: how much of it was measured. */
  cutShort?: string;
}

export interface CapacityResult {
  /** The highest rate sustained (0 when even the lowest step failed). */
  sustainableRps: number;
  /** What ended the climb: the p99 bound, failures, answers falling behind, the rate cap, or the load generator itself. */
  limitedBy: 'p99' | 'conformance' | 'errors' | 'throughput' | 'max-rate' | 'generator' | 'interrupted';
  criterion: CapacityCriterion;
  /** Absent when the criterion is conformant and no p99 bound was given. */
  p99BoundMs?: number;
  /** Conformant criterion: the lowest rate at which a step broke a requirement, and which. */
  brokenFrom?: StepViolation & { rps: number };
  steps: CapacityStep[];
}

/** Share of the offered rate the target must answer within the step (and its drain) to keep up. */
const KEEP_UP = 0.9;
/** The generator's own p99 send lag beyond which a step measured it, not the target (half the p99 bound when one applies). */
const GENERATOR_LAG_MS = 125;

export const CAPACITY_DEFAULTS = { precision: 0.1, maxBisections: 4, pauseMs: 1_000 };

/** Steps of a climb from `startRate` that doubles up to `maxRate`, each one sustained. */
export function climbSteps(startRate: number, maxRate: number): number {
  let n = 1;
  for (let rate = Math.min(startRate, maxRate); rate < maxRate; rate = Math.min(rate * 2, maxRate)) n++;
  return n;
}

/** The most steps a search can take: a climb failing at the rate cap, then its bisections. */
export function maxCapacitySteps(opts: Pick<CapacitySearchOptions, 'startRate' | 'maxRate' | 'maxBisections'>): number {
  return climbSteps(opts.startRate, opts.maxRate) + opts.maxBisections;
}

/** `step(rate)` runs one open-loop step at that rate and returns its figures. */
export async function findCapacity(step: (rate: number) => Promise<StepFigures>, opts: CapacitySearchOptions): Promise<CapacityResult> {
  const steps: CapacityStep[] = [];
  const criterion = opts.criterion ?? 'p99';
  let bound = maxCapacitySteps(opts);
  const stopped = (): boolean => opts.signal?.aborted === true;
  /** Undefined when the search was interrupted before or during the step. */
  const judge = async (phase: CapacityStep['phase'], rate: number): Promise<CapacityStep | undefined> => {
    if (steps.length > 0) {
      await sleep(opts.pauseMs, undefined, { signal: opts.signal }).catch(() => undefined);
      if (stopped()) return undefined;
    }
    opts.onStep?.({ index: steps.length + 1, bound, phase, rate });
    const f = await step(rate);
    const s: CapacityStep = {
      phase,
      rate,
      requests: f.requests,
      failed: f.failed,
      p50: f.latency.p50,
      p99: f.latency.p99,
      sendLagP99: f.sendLagMs.p99,
      sustained: true,
    };
    if (f.stoppedBy === 'request-cap' && f.stopNote) s.cutShort = f.stopNote;
    const conformant = criterion === 'conformant';
    if (conformant && f.violation) s.violation = f.violation;
    if (f.failed > 0) Object.assign(s, { sustained: false, why: `${f.failed} of ${f.requests} requests failed` });
    else if (conformant && f.violation)
      Object.assign(s, { sustained: false, why: `${f.violation.requirement} broken: ${f.violation.problem}` });
    else if (opts.p99BoundMs !== undefined && f.latency.p99 > opts.p99BoundMs)
      Object.assign(s, { sustained: false, why: `p99 ${f.latency.p99} ms is above ${opts.p99BoundMs} ms` });
    // Answers trailing far behind the offered rate mean a queue was building, even if the step ended before it showed in p99.
    else if (f.requestsPerSecond < KEEP_UP * rate)
      Object.assign(s, { sustained: false, why: `it served ${f.requestsPerSecond.toFixed(1)} of ${rate} requests/s offered` });
    // A generator that sent late measured itself, not the target.
    // (A violation stands whatever the generator did: it was found at the rate that was sent.)
    if (!s.violation && f.sendLagMs.p99 > (opts.p99BoundMs === undefined ? GENERATOR_LAG_MS : opts.p99BoundMs / 2))
      Object.assign(s, {
        sustained: false,
        why: `the load generator sent late (p99 ${f.sendLagMs.p99} ms): it, not the target, is the limit here`,
      });
    if (stopped()) Object.assign(s, { sustained: false, why: 'interrupted before the step ended', interrupted: true });
    steps.push(s);
    return stopped() ? undefined : s;
  };

  let good = 0;
  let bad: CapacityStep | undefined;
  const result = (sustainableRps: number, limitedBy: CapacityResult['limitedBy']): CapacityResult => {
    const broken = steps.filter((x) => x.violation).sort((a, b) => a.rate - b.rate)[0];
    return {
      sustainableRps,
      limitedBy,
      criterion,
      ...(opts.p99BoundMs !== undefined && { p99BoundMs: opts.p99BoundMs }),
      ...(broken && { brokenFrom: { ...broken.violation!, rps: broken.rate } }),
      steps,
    };
  };
  const interrupted = (): CapacityResult => result(good, 'interrupted');
  // The first step runs whatever happens (it stops at once when interrupted): the scenario has figures to show.
  for (let rate = Math.min(opts.startRate, opts.maxRate); ; rate = Math.min(rate * 2, opts.maxRate)) {
    const s = await judge('climb', rate);
    if (!s) return interrupted();
    if (!s.sustained) {
      bad = s;
      break;
    }
    good = rate;
    if (rate >= opts.maxRate) return result(good, 'max-rate');
  }
  bound = steps.length + opts.maxBisections;
  const limitedBy: CapacityResult['limitedBy'] = bad.why?.includes('generator')
    ? 'generator'
    : bad.failed > 0
      ? 'errors'
      : bad.why?.startsWith('it served')
        ? 'throughput'
        : bad.violation && criterion === 'conformant'
          ? 'conformance'
          : 'p99';
  let lo = good;
  let hi = bad.rate;
  for (let k = 0; k < opts.maxBisections && hi - lo > opts.precision * hi; k++) {
    const mid = Math.round((lo + hi) / 2);
    if (mid <= lo || mid >= hi) break;
    const s = await judge('bisect', mid);
    if (!s) return interrupted();
    if (s.sustained) lo = good = mid;
    else hi = mid;
  }
  return result(lo, limitedBy);
}
