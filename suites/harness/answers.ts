/**
 * The run-wide answers oracle: every answer of the run, whichever area asked and whatever the
 * route or outcome, is judged as it arrives by every check of answer-checks.ts that applies to it.
 * What a check finds is kept with its exchange (a few per route), and the oracle's tests at the end
 * of the run (suites/oracle) judge each requirement from all of it. Refusals of requests that
 * carried no credentials are kept too: whether one leaks data of the tree (AUTH-5) is read against
 * the tree, once it is known.
 */
import type { Exchange } from '../../client/evidence.js';
import { siteName } from '../../client/answer-site.js';
import { forgetEachRun } from '../../client/run-scoped.js';
import { ANSWER_CHECKS, answerOf, type Answer, type AnswerRequirement, type HeldRequirement } from './answer-checks.js';

export type { AnswerRequirement } from './answer-checks.js';

/** One answer that broke a statement. */
export interface AnswerFinding {
  requirement: AnswerRequirement;
  /** `route:outcome`, e.g. `logout:ok`. */
  site: string;
  problem: string;
  /** As recorded, not yet redacted. */
  exchange: Exchange;
}

export interface Tally {
  /** Answers the requirement's check applied to. */
  judged: number;
  /** Of them, those that broke it. */
  broken: number;
  /** The sites (route:outcome) judged. */
  sites: Set<string>;
  /** Kept findings: the first few of each site. */
  kept: AnswerFinding[];
}

/** Findings kept per requirement and site; beyond it only the count grows. */
const KEPT_PER_SITE = 3;
/** Anonymous refusals kept for the leak oracle (the fuzzer sends a few hundred). */
const REFUSALS_KEPT = 2000;

const tallies = new Map<AnswerRequirement, Tally>();
const refusals: Answer[] = [];
let refusalsSeen = 0;

forgetEachRun(() => {
  tallies.clear();
  refusals.length = 0;
  refusalsSeen = 0;
});

function tally(requirement: AnswerRequirement): Tally {
  let t = tallies.get(requirement);
  if (!t) tallies.set(requirement, (t = { judged: 0, broken: 0, sites: new Set(), kept: [] }));
  return t;
}

/** Applies every check to one answer; the listener on the run's evidence log (suites/harness/session.ts). */
export function noteAnswer(x: Readonly<Exchange>, json?: unknown): void {
  const a = answerOf(x, json);
  if (!a) return;
  const site = siteName(a);
  for (const check of ANSWER_CHECKS) {
    if (!check.applies(a)) continue;
    const t = tally(check.requirement);
    t.judged++;
    t.sites.add(site);
    const problem = check.problem(a);
    if (problem === undefined) continue;
    t.broken++;
    if (t.kept.filter((f) => f.site === site).length < KEPT_PER_SITE)
      t.kept.push({ requirement: check.requirement, site, problem, exchange: { ...x } });
  }
  if (a.anonymous && a.outcome === 'error' && (x.responseBody ?? '').trim() !== '') {
    refusalsSeen++;
    if (refusals.length < REFUSALS_KEPT) refusals.push({ ...a, x: { ...x } });
  }
}

/** What the run's answers showed of `requirement` so far. */
export function answerTally(requirement: HeldRequirement): Readonly<Tally> {
  return tally(requirement);
}

/** The refusals of requests without credentials, for the leak oracle; `seen` counts those not kept too. */
export function anonymousRefusals(): { kept: readonly Answer[]; seen: number } {
  return { kept: refusals, seen: refusalsSeen };
}
