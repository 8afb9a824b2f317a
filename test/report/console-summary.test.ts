/**
 * The console summary says what the run established, in a few lines: an interrupted run counts what
 * it did not run instead of listing it, and compares nothing it did not judge with the baseline; a
 * run that lacked writable attributes says so once, with a count, and names the shipped profiles.
 */
import { describe, expect, test } from 'vitest';
import { summarize, type Results, type Verdict } from '../../client/results.js';
import { formatSummary, formatTrend, type AreasRun } from '../../report/console-summary.js';
import type { Trend } from '../../report/changes.js';
import { resultsWith } from './fixture.js';

const NOT_RUN = 'not run: the run was interrupted (SIGINT)';
const HINT = 'no safely writable attribute is named for this target (use --writable PATH:ATTR[=V1|V2])';

/** `resultsWith` with its summary counted again and the run's extras. */
function results(verdicts: Record<string, { verdict: Verdict; reason?: string }>, extra: Partial<Results> = {}): Results {
  const r = resultsWith(verdicts);
  return { ...r, summary: summarize(r.requirements), ...extra };
}

/** Every requirement but the first `judged` not run: an interruption early in the run. */
function interrupted(judged: number): Results {
  const base = resultsWith();
  const verdicts = Object.fromEntries(
    base.requirements.slice(judged).map((r) => [r.id, { verdict: 'NOT_TESTED' as const, reason: NOT_RUN }]),
  );
  return results(verdicts, { interrupted: { signal: 'SIGINT', at: '2026-01-02T03:04:10.000Z' } });
}

const AREAS: AreasRun = {
  total: 108,
  selected: ['auth', 'envelope', 'objects', 'listings', 'writes'],
  reached: [
    { area: 'auth', ran: 14, notRun: 0 },
    { area: 'envelope', ran: 2, notRun: 2 },
    // vitest reports the tests of the areas after the cut as skipped: reached, none run.
    { area: 'objects', ran: 0, notRun: 12 },
  ],
};

describe('an interrupted run', () => {
  test('lists no requirement it did not run: two lines say what ran and what did not, the areas not reached among them', () => {
    const r = interrupted(10);
    const lines = formatSummary(r, [], { areas: AREAS });
    expect(lines.filter((l) => l.includes(NOT_RUN))).toEqual([]);
    expect(lines).not.toContain('NOT_TESTED:');
    expect(lines).toContain('ran: 16 of 108 tests (area auth done; envelope cut short after 2 of 4), judging 10 requirements');
    expect(lines).toContain(
      `not run: 92 tests, ${r.requirements.length - 10} requirements NOT_TESTED; areas not reached: objects, listings, writes`,
    );
    expect(lines.some((l) => l.startsWith('Interrupted by SIGINT at '))).toBe(true);
    // Nothing claims the run judged nothing with exit 5: its exit is the signal's.
    expect(lines.join('\n')).not.toMatch(/exit 5/);
    expect(lines.length).toBeLessThanOrEqual(6);
  });

  test('a requirement NOT_TESTED for another reason (its test cut short) is still listed', () => {
    const r = interrupted(10);
    const cut = r.requirements[3]!;
    cut.verdict = 'NOT_TESTED';
    cut.reason = 'not judged to the end: the run was interrupted (SIGINT) while this test ran';
    const lines = formatSummary({ ...r, summary: summarize(r.requirements) }, [], { areas: AREAS });
    expect(lines).toContain('NOT_TESTED:');
    expect(lines.filter((l) => l.startsWith(`  ${cut.id} `))).toHaveLength(1);
  });

  test('report, without the areas: the counts of requirements', () => {
    const lines = formatSummary(interrupted(10), []);
    expect(lines).toContain('ran: 10 requirements judged');
    expect(lines.filter((l) => l.startsWith('not run: '))).toHaveLength(1);
  });

  test('against the baseline: what it judged differently is listed, what it did not run is counted on one line', () => {
    const trend: Trend = {
      source: 'reports/latest/previous/results.json',
      previousStartedAt: '2026-01-01T00:00:00.000Z',
      explicit: false,
      changes: [
        { id: 'EP-1', from: 'PASS', to: 'FAIL', kind: 'regression' },
        ...Array.from({ length: 60 }, (_, i) => ({
          id: `X-${i}`,
          from: 'PASS' as const,
          to: 'NOT_TESTED' as const,
          kind: 'change' as const,
        })),
      ],
    };
    const lines = formatTrend(trend, true);
    expect(lines).toEqual([
      'changed since the baseline (reports/latest/previous/results.json), of what ran:',
      '  EP-1     PASS -> FAIL  (newly failing)',
      '60 requirements are NOT_TESTED where the baseline (reports/latest/previous/results.json) had a verdict: the interrupted run did not judge them (not listed)',
    ]);
    // A whole run lists every change.
    expect(formatTrend(trend)).toHaveLength(62);
  });
});

describe('a run that lacked writable attributes', () => {
  const lacking = (): Results =>
    results({
      'EP-8': { verdict: 'NOT_TESTED', reason: HINT },
      'EP-9': { verdict: 'NOT_TESTED', reason: `${HINT}; no two named writable attributes are on one object` },
      'EV-7': { verdict: 'NOT_TESTED', reason: `no message arrived, and none could be provoked (${HINT})` },
      'EP-11': { verdict: 'NOT_TESTED', reason: 'needs the destructive profile; this run uses safe' },
    });

  test('says "use --writable" once, with the count, not on each requirement', () => {
    const lines = formatSummary(lacking(), [], { writableHintTests: 31 });
    expect(lines.filter((l) => l.includes('--writable'))).toEqual([
      'writable: 31 tests (3 requirements) not tested for want of a named writable attribute; name each with --writable PATH:ATTR[=V1|V2]',
    ]);
    expect(lines).toContain('  EP-8     MUST    no safely writable attribute is named for this target');
    expect(lines.some((l) => l.includes('(no safely writable attribute is named for this target)'))).toBe(true);
    // No target-profile line where the run did not ask for one (the embedded simulator, a profile given).
    expect(lines.filter((l) => l.includes('--target-profile'))).toEqual([]);
  });

  test('against a target without a profile: one line names --target-profile and the shipped profiles', () => {
    const shippedProfiles = { dir: 'profiles', names: ['bmcweb', 'phosphor-rest-server'] };
    const lines = formatSummary(lacking(), [], { shippedProfiles });
    expect(lines.filter((l) => l.includes('--target-profile'))).toEqual([
      "target profile: none given; a reviewed one names its platform's writables, namespace and known deviations: --target-profile profiles/<platform>.json (shipped: bmcweb, phosphor-rest-server)",
    ]);
    // Nothing to say when nothing lacked a writable.
    expect(formatSummary(results({}), [], { shippedProfiles }).filter((l) => l.includes('--target-profile'))).toEqual([]);
  });
});
