import { describe, expect, test } from 'vitest';
import { requirement } from '../../catalogue/requirements.js';
import { rollUp, summarize, type TestOutcome } from '../../runner/results.js';

const outcome = (verdict: TestOutcome['verdict'], requirements = ['EP-5'], reason?: string): TestOutcome => ({
  name: `[${requirements.join(' ')}] t`,
  file: 'suites/listings.suite.ts',
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
