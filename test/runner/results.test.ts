import { describe, expect, test } from 'vitest';
import { requirement } from '../../catalogue/requirements.js';
import { rollUp, summarize, type Results, type TestOutcome } from '../../runner/results.js';
import { verdictChanges } from '../../runner/changes.js';

const outcome = (verdict: TestOutcome['verdict'], requirements = ['EP-5'], reason?: string): TestOutcome => ({
  name: `[${requirements.join(' ')}] t`, file: 'suites/listings.suite.ts', requirements, verdict, reason,
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
    expect(rollUp(requirement('EP-5'), [outcome('PASS', ['EP-6'])], 'area not selected')).toMatchObject({ verdict: 'NOT_TESTED', reason: 'area not selected' });
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

describe('changes since a baseline', () => {
  const results = (verdicts: Record<string, TestOutcome['verdict']>): Results => ({
    target: 't', namespace: 'n', profile: 'safe', startedAt: '', durationMs: 0, seed: 1,
    summary: { PASS: 0, FAIL: 0, WARN: 0, NOT_TESTED: 0, XFAIL: 0, XPASS: 0 }, observations: [],
    requirements: Object.entries(verdicts).map(([id, verdict]) => ({ id, verdict, level: 'MUST', section: '', title: '', tests: [] })),
  });

  test('names regressions, fixes and other changes; unchanged verdicts are not listed', () => {
    const changes = verdictChanges(
      results({ 'EP-1': 'PASS', 'EP-2': 'FAIL', 'EP-3': 'PASS', 'EP-4': 'PASS' }),
      results({ 'EP-1': 'FAIL', 'EP-2': 'PASS', 'EP-3': 'WARN', 'EP-4': 'PASS' }),
    );
    expect(changes).toEqual([
      { id: 'EP-1', from: 'PASS', to: 'FAIL', kind: 'regression' },
      { id: 'EP-2', from: 'FAIL', to: 'PASS', kind: 'fix' },
      { id: 'EP-3', from: 'PASS', to: 'WARN', kind: 'change' },
    ]);
  });
});
