/**
 * The verdicts of load --verify: each requirement judged under load PASSes or FAILs as it would
 * idle, a FAIL with the load level at which it first appeared and its evidence. load.json carries
 * them, load.html shows them with the timeline of a failing register history, the console prints one
 * line per FAIL.
 */
import { REQUIREMENTS } from '../../catalogue/requirements.js';
import type { VerifyOutcome } from '../run-load.js';
import type { AnswerEvidence } from './answers.js';
import type { StreamCount } from './filters.js';
import type { RegisterRound } from './register.js';
import type { EventCount } from './register-events.js';

export interface VerifiedRequirement {
  id: string;
  title: string;
  verdict: 'PASS' | 'FAIL';
  /** FAIL: requests/s when it first appeared, in which scenario, what, and how often. */
  firstRps?: number;
  scenario?: string;
  problem?: string;
  count?: number;
  evidence?: AnswerEvidence;
}

/** A register round as load.json keeps it: its counts, without the examples the console and page take from the run. */
export type VerifiedRound = Omit<RegisterRound, 'events' | 'streams'> & {
  events?: Omit<EventCount, 'example'>;
  /** Each subscriber by its kind of filter; `foreign`: events its filter excludes. */
  streams?: Array<Omit<StreamCount, 'example' | 'foreignExample'>>;
};

export interface Verification {
  verdict: 'pass' | 'fail';
  /** Every Nth answer was judged, and every answer that was not 2xx. */
  every: number;
  judged: number;
  requirements: VerifiedRequirement[];
  register?: { path: string; name: string; sessions: number; sibling?: string; rounds: VerifiedRound[] };
}

export function verificationOf(v: VerifyOutcome): Verification {
  const byId = new Map(v.violations.map((x) => [x.requirement, x]));
  const ids = [...new Set([...v.judgedRequirements, ...byId.keys()])];
  const requirements = ids.map((id): VerifiedRequirement => {
    const title = REQUIREMENTS.find((r) => r.id === id)?.title ?? id;
    const x = byId.get(id);
    if (!x) return { id, title, verdict: 'PASS' };
    return {
      id,
      title,
      verdict: 'FAIL',
      firstRps: x.firstRps,
      scenario: x.scenario,
      problem: x.problem,
      count: x.count,
      ...(x.evidence && { evidence: x.evidence }),
    };
  });
  return {
    verdict: byId.size > 0 ? 'fail' : 'pass',
    every: v.every,
    judged: v.judged,
    requirements,
    ...(v.register && {
      register: {
        ...v.register,
        rounds: v.register.rounds.map(({ streams, events, ...r }): VerifiedRound => ({
          ...r,
          ...(streams && { streams: streams.map(({ example: _e, foreignExample: _f, ...counts }) => counts) }),
          ...(events && { events: countsOf(events) }),
        })),
      },
    }),
  };
}

/** A round's event counts, without the example and the load level the run's own lines carry. */
function countsOf({
  example: _example,
  firstRps: _firstRps,
  ...counts
}: NonNullable<RegisterRound['events']>): Omit<EventCount, 'example'> {
  return counts;
}

/** One sentence per requirement violated under load (each makes the run exit 1). */
export function verificationFailures(v: VerifyOutcome): string[] {
  return v.violations.map((x) => `${x.requirement} FAIL under load from ${formatRps(x.firstRps)} req/s (${x.scenario}): ${x.problem}`);
}

function formatRps(rps: number): string {
  return rps >= 100 ? String(Math.round(rps)) : String(Math.round(rps * 10) / 10);
}
