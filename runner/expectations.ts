/**
 * An expectations file records a platform's known deviations once: an expected FAIL is reported
 * as XFAIL (with the recorded reason) and does not fail the run; an expected failure that no
 * longer fails is XPASS, flagged so that the file is kept true (it fails the run only with
 * --strict-expectations).
 *
 * { "platform": "…", "expected": { "RULE-4": "answers 405" }, "writable": ["/xyz/…:Asserted"] }
 */
import { headline } from '../client/headline.js';
import type { WritableAttribute } from './config.js';
import type { RequirementResult } from '../client/results.js';
import { loadTargetProfile } from './target-profile.js';

export interface Expectations {
  file: string;
  platform?: string;
  /** Every file the deviations came from, with its SHA-256. */
  files?: Array<{ file: string; sha256: string }>;
  expected: Record<string, string>;
  writable: WritableAttribute[];
}

/** An expectations file is a target profile; only its platform, deviations and writables count here. */
export async function loadExpectations(file: string): Promise<Expectations> {
  const profile = await loadTargetProfile(file);
  return {
    file,
    platform: profile.platform,
    files: digestOf(profile),
    expected: profile.expected,
    writable: profile.writable,
  };
}

/** The profile's file with its digest, as results.json names the files of its deviations. */
export function digestOf(profile: { file: string; sha256?: string }): Array<{ file: string; sha256: string }> {
  return profile.sha256 === undefined ? [] : [{ file: profile.file, sha256: profile.sha256 }];
}

export interface ExpectedRequirement extends RequirementResult {
  /** The requirement is a known deviation of the platform, with its recorded reason. */
  expected?: string;
}

/**
 * An expected failure is seen gone (XPASS) only when every test of the requirement was judged and
 * none failed. `partial` names why some of its tests may not have run at all (areas not selected,
 * the run interrupted); tests that ran without judging it (NOT_TESTED: a profile, a missing
 * writable) leave it partly judged. Either way a pass of the tests that judged it refutes
 * nothing: it stays PASS (or WARN) with the expectation noted, and the file is not to be changed.
 */
export function applyExpectations(
  requirements: RequirementResult[],
  exp: Expectations | undefined,
  partial: (id: string) => string | undefined = () => undefined,
): ExpectedRequirement[] {
  if (!exp) return requirements;
  return requirements.map((r) => {
    const known = exp.expected[r.id];
    if (known === undefined) return r;
    if (r.verdict === 'FAIL') return { ...r, verdict: 'XFAIL', expected: known };
    if (r.verdict !== 'PASS' && r.verdict !== 'WARN') return { ...r, expected: known };
    const unseen = notSeen(r, partial(r.id));
    if (unseen !== undefined) {
      return {
        ...r,
        expected: known,
        reason: `expected FAIL not seen, nor refuted: ${unseen}${r.reason ? `; ${r.reason}` : ''}`,
      };
    }
    return {
      ...r,
      verdict: 'XPASS',
      expected: known,
      reason: `expected to fail (${known}) but now ${r.verdict}${r.reason ? `: ${r.reason}` : ''}; update ${exp.file}`,
    };
  });
}

/** Why the run could not see all of a requirement, or undefined when it judged every test of it. */
function notSeen(r: RequirementResult, unrun: string | undefined): string | undefined {
  const notJudged = r.partly?.notJudged ?? [];
  const parts = [
    ...(notJudged.length > 0
      ? [`${notJudged.length} of its ${r.tests.length} tests did not judge it (${[...new Set(notJudged.map((t) => t.reason))].join('; ')})`]
      : []),
    ...(unrun !== undefined ? [unrun] : []),
  ];
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** FAILs that count against the run: the unexpected ones (and, when strict, the XPASSes). */
export function unexpectedFailures(requirements: ExpectedRequirement[], strict = false): ExpectedRequirement[] {
  return requirements.filter((r) => r.verdict === 'FAIL' || (strict && r.verdict === 'XPASS'));
}

/**
 * A starting expectations file from a run: every requirement that FAILs (or XFAILs) now, with the
 * failure as its reason, for a reviewer to edit into the platform's known deviations. An expected
 * failure the run did not refute (not judged, or partly: no XPASS) keeps its recorded reason.
 */
export function expectationsFrom(requirements: ExpectedRequirement[], base: { platform?: string; writable?: string[] } = {}): string {
  const expected: Record<string, string> = {};
  for (const r of requirements) {
    if (r.verdict === 'FAIL' || r.verdict === 'XFAIL') expected[r.id] = r.expected ?? `REVIEW: ${headline(r.reason ?? 'fails')}`;
    else if (r.expected !== undefined && r.verdict !== 'XPASS') expected[r.id] = r.expected;
  }
  return `${JSON.stringify({ ...(base.platform && { platform: base.platform }), expected, ...(base.writable && base.writable.length > 0 && { writable: base.writable }) }, null, 2)}\n`;
}
