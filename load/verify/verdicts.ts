/**
 * The verdicts of load --verify: each requirement judged under load PASSes or FAILs as it would
 * idle, a FAIL with the load level at which it first appeared and its evidence. load.json carries
 * them, load.html shows them with the timeline of a failing register history, the console prints one
 * line per FAIL.
 */
import { REQUIREMENTS } from '../../catalogue/requirements.js';
import type { VerifyOutcome } from '../run-load.js';
import type { AnswerEvidence } from './answers.js';
import type { RegisterHistory } from './history.js';

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

export interface VerifiedRound {
  scenario: string;
  rate?: number;
  operations: number;
  failed: number;
  verdict: 'linearizable' | 'not-linearizable' | 'unknown';
  note?: string;
  events?: { expected: number; delivered: number; lost: number; duplicated: number; reordered: number };
  /** Each subscriber by its kind of filter; `foreign`: events its filter excludes. */
  streams?: Array<{
    kind: string;
    expected: number;
    delivered: number;
    lost: number;
    duplicated: number;
    reordered: number;
    foreign: number;
    closed?: true;
  }>;
  violation?: { firstRps: number; operations: number; replayKey: string; svg: string; history: RegisterHistory };
}

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
        rounds: v.register.rounds.map(({ streams, ...r }) => ({
          ...r,
          ...(streams && {
            streams: streams.map((x) => ({
              kind: x.kind,
              expected: x.expected,
              delivered: x.delivered,
              lost: x.lost,
              duplicated: x.duplicated,
              reordered: x.reordered,
              foreign: x.foreign,
              ...(x.closed && { closed: x.closed }),
            })),
          }),
          ...(r.events && {
            events: {
              expected: r.events.expected,
              delivered: r.events.delivered,
              lost: r.events.lost,
              duplicated: r.events.duplicated,
              reordered: r.events.reordered,
            },
          }),
        })),
      },
    }),
  };
}

/** One sentence per requirement violated under load (each makes the run exit 1). */
export function verificationFailures(v: VerifyOutcome): string[] {
  return v.violations.map((x) => `${x.requirement} FAIL under load from ${formatRps(x.firstRps)} req/s (${x.scenario}): ${x.problem}`);
}

function formatRps(rps: number): string {
  return rps >= 100 ? String(Math.round(rps)) : String(Math.round(rps * 10) / 10);
}
