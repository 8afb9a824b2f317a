import { describe, expect, test } from 'vitest';
import { requirement } from '../../catalogue/requirements.js';
import { coverageShortfall, rollUp, summarize, type RequirementResult, type TestOutcome } from '../../client/results.js';

const outcome = (verdict: TestOutcome['verdict'], requirements = ['EP-5'], reason?: string): TestOutcome => ({
  name: `[${requirements.join(' ')}] t`,
  file: 'suites/listings/listings.suite.ts',
  requirements,
  verdict,
  reason,
});

describe('verdict roll-up', () => {
  test('a requirement fails when any of its tests fails, whatever else passed', () => {
    const r = rollUp(requirement('EP-5'), [outcome('PASS'), outcome('FAIL', ['EP-5'], 'bad'), outcome('WARN')], 'absent');
    expect(r.verdict).toBe('FAIL');
    expect(r.reason).toBe('bad');
    expect(r.tests).toHaveLength(3);
  });

  test('warns when a test warns and none fails; passes when one passed', () => {
    expect(rollUp(requirement('EP-5'), [outcome('PASS'), outcome('WARN', ['EP-5'], 'w')], 'x').verdict).toBe('WARN');
    expect(rollUp(requirement('EP-5'), [outcome('PASS'), outcome('NOT_TESTED', ['EP-5'], 'n')], 'x').verdict).toBe('PASS');
  });

  test('a PASS or WARN with tests of it NOT_TESTED is partly judged, naming them; a FAIL or a whole PASS is not', () => {
    const skipped = outcome('NOT_TESTED', ['EP-5'], 'needs the destructive profile');
    const pass = rollUp(requirement('EP-5'), [outcome('PASS'), skipped], 'x');
    expect(pass).toMatchObject({ verdict: 'PASS', partly: { notJudged: [{ test: '[EP-5] t', reason: 'needs the destructive profile' }] } });
    const warn = rollUp(requirement('EP-5'), [outcome('WARN', ['EP-5'], 'w'), skipped], 'x');
    expect(warn).toMatchObject({ verdict: 'WARN', reason: 'w', partly: { notJudged: [{ reason: 'needs the destructive profile' }] } });
    expect(rollUp(requirement('EP-5'), [outcome('FAIL', ['EP-5'], 'bad'), skipped], 'x').partly).toBeUndefined();
    expect(rollUp(requirement('EP-5'), [outcome('PASS'), outcome('PASS')], 'x').partly).toBeUndefined();
    expect(rollUp(requirement('EP-5'), [skipped], 'x').partly).toBeUndefined();
    // A qualifier: the counts stay those of the verdicts.
    expect(summarize([pass, warn])).toMatchObject({ PASS: 1, WARN: 1 });
  });

  test('is NOT_TESTED with the reasons when no test ran it, or with the absent reason', () => {
    const r = rollUp(requirement('EP-5'), [outcome('NOT_TESTED', ['EP-5'], 'needs destructive')], 'x');
    expect(r).toMatchObject({ verdict: 'NOT_TESTED', reason: 'needs destructive' });
    expect(rollUp(requirement('EP-5'), [outcome('PASS', ['EP-6'])], 'area not selected')).toMatchObject({
      verdict: 'NOT_TESTED',
      reason: 'area not selected',
    });
  });

  test('an OBSERVE requirement is never failed: a failing recorder is a WARN', () => {
    const r = rollUp(requirement('VER-1'), [outcome('FAIL', ['VER-1'], 'timeout')], 'x');
    expect(r.verdict).toBe('WARN');
    expect(r.reason).toContain('could not record');
  });

  test('summary counts verdicts', () => {
    const reqs = [rollUp(requirement('EP-5'), [outcome('PASS')], 'x'), rollUp(requirement('EP-6'), [], 'x')];
    expect(summarize(reqs)).toEqual({ PASS: 1, FAIL: 0, WARN: 0, NOT_TESTED: 1, XFAIL: 0, XPASS: 0 });
  });
});

describe('--min-judged coverage', () => {
  const req = (id: string, verdict: RequirementResult['verdict'], reason?: string): RequirementResult =>
    ({ id, verdict, reason, tests: [] }) as unknown as RequirementResult;
  const run = [
    req('EP-1', 'PASS'),
    req('EP-2', 'FAIL'),
    req('EP-3', 'NOT_TESTED', 'needs the destructive profile'),
    req('EP-4', 'NOT_TESTED', 'area writes not selected (--only)'),
    req('EP-5', 'NOT_TESTED', 'not selected (--requirements)'),
  ];

  test('counts judged requirements among the selected ones only', () => {
    expect(coverageShortfall(run, { count: 2 })).toBeUndefined();
    expect(coverageShortfall(run, { count: 3 })).toBe('2 of 3 selected requirements were judged; --min-judged asks for 3 (exit 5)');
    expect(coverageShortfall(run, { percent: 66 })).toBeUndefined();
    expect(coverageShortfall(run, { percent: 67 })).toBe(
      '2 of 3 selected requirements were judged; --min-judged asks for 67% (3) (exit 5)',
    );
    expect(coverageShortfall(run, undefined)).toBeUndefined();
  });
});
