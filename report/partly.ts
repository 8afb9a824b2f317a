/**
 * How every report says that a PASS or WARN rests on some of a requirement's tests only: "PASS,
 * partly judged", naming the tests that did not judge it and why (results.json keeps the list).
 */
import type { RequirementResult } from '../client/results.js';

type Partly = Pick<RequirementResult, 'verdict' | 'partly' | 'tests'>;

export const PARTLY = 'partly judged';

/** "PASS, partly judged", or the verdict alone. */
export function verdictLabel(r: Partly): string {
  return r.partly ? `${r.verdict}, ${PARTLY}` : r.verdict;
}

/** "2 of 3 tests not judged" */
export function notJudgedCount(r: Partly): string {
  const n = r.partly?.notJudged.length ?? 0;
  return `${n} of ${r.tests.length} test${r.tests.length === 1 ? '' : 's'} not judged`;
}

/** The tests not judged, grouped by the reason they were not. */
export function notJudgedByReason(r: Partly): Array<{ reason: string; tests: string[] }> {
  const byReason = new Map<string, string[]>();
  for (const { test, reason } of r.partly?.notJudged ?? []) byReason.set(reason, [...(byReason.get(reason) ?? []), test]);
  return [...byReason].map(([reason, tests]) => ({ reason, tests }));
}

/** "2 of 3 tests not judged: <reason>: <test>; <test> — <reason>: <test>" (test names hold commas). */
export function partlyText(r: Partly): string {
  return `${notJudgedCount(r)}: ${notJudgedByReason(r)
    .map((g) => `${g.reason}: ${g.tests.join('; ')}`)
    .join(' — ')}`;
}

/** Partly judged requirements by the reason their tests were not judged: one cause, one line. */
export function partlyByReason(reqs: readonly RequirementResult[]): Array<{ reason: string; ids: string[] }> {
  const byReason = new Map<string, string[]>();
  for (const r of reqs) {
    for (const reason of new Set(r.partly?.notJudged.map((t) => t.reason))) byReason.set(reason, [...(byReason.get(reason) ?? []), r.id]);
  }
  return [...byReason].map(([reason, ids]) => ({ reason, ids }));
}
