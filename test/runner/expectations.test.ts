import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { requirement } from '../../catalogue/requirements.js';
import { applyExpectations, expectationsFrom, loadExpectations, unexpectedFailures } from '../../runner/expectations.js';
import { rollUp, type TestOutcome } from '../../client/results.js';
import { tempDirs } from '../support/temp-dirs.js';

const result = (id: string, verdict: TestOutcome['verdict']) =>
  rollUp(requirement(id), [{ name: 't', file: 'f', requirements: [id], verdict, reason: verdict === 'FAIL' ? 'why' : undefined }], 'x');

const tempDir = tempDirs('bmc-exp-');

async function file(content: string): Promise<string> {
  const f = join(await tempDir(), 'expectations.json');
  await writeFile(f, content);
  return f;
}

describe('expectations', () => {
  test('an expected FAIL is an XFAIL with its recorded reason and does not count against the run', async () => {
    const exp = await loadExpectations(await file('{"platform":"p","expected":{"RULE-4":"answers 405"}}'));
    const reqs = applyExpectations([result('RULE-4', 'FAIL'), result('RULE-5', 'FAIL')], exp);
    expect(reqs[0]).toMatchObject({ id: 'RULE-4', verdict: 'XFAIL', expected: 'answers 405', reason: 'why' });
    expect(unexpectedFailures(reqs).map((r) => r.id)).toEqual(['RULE-5']);
  });

  test('an expected failure that disappeared is an XPASS, held against the run only when strict', async () => {
    const exp = await loadExpectations(await file('{"expected":{"EP-9":"500 on PUT object"}}'));
    const reqs = applyExpectations([result('EP-9', 'PASS')], exp);
    expect(reqs[0]!.verdict).toBe('XPASS');
    expect(reqs[0]!.reason).toMatch(/expected to fail .* but now PASS/);
    expect(unexpectedFailures(reqs)).toEqual([]);
    expect(unexpectedFailures(reqs, true).map((r) => r.id)).toEqual(['EP-9']);
  });

  test('in a run of some areas (--only) or an interrupted one, a pass of an expected failure is no XPASS', async () => {
    const exp = await loadExpectations(await file('{"expected":{"EP-9":"500 on PUT object"}}'));
    const reqs = applyExpectations([result('EP-9', 'PASS')], exp, () => 'the areas writes, fuzz did not run (--only)');
    expect(reqs[0]).toMatchObject({ verdict: 'PASS', expected: '500 on PUT object' });
    expect(reqs[0]!.reason).toMatch(/did not run \(--only\), so the tests that ran neither confirm nor refute it/);
    expect(unexpectedFailures(reqs, true)).toEqual([]);
    // A FAIL is still seen where it shows.
    expect(applyExpectations([result('EP-9', 'FAIL')], exp, () => 'partial')[0]!.verdict).toBe('XFAIL');
  });

  test('a starting file holds the current failures with their reasons for review', async () => {
    const exp = await loadExpectations(await file('{"expected":{"RULE-4":"answers 405"}}'));
    const reqs = applyExpectations([result('RULE-4', 'FAIL'), result('RULE-5', 'FAIL'), result('EP-9', 'PASS')], exp);
    const written = JSON.parse(expectationsFrom(reqs, { platform: 'lab' }));
    expect(written).toEqual({ platform: 'lab', expected: { 'RULE-4': 'answers 405', 'RULE-5': 'REVIEW: why' } });
    // What it writes loads back.
    expect((await loadExpectations(await file(JSON.stringify(written)))).expected).toEqual(written.expected);
  });

  test('writable attributes come with the platform', async () => {
    const exp = await loadExpectations(await file('{"writable":["/xyz/a/led/x:Asserted","/xyz/a/led/y:State=A|B"]}'));
    expect(exp.writable).toEqual([
      { path: '/xyz/a/led/x', name: 'Asserted' },
      { path: '/xyz/a/led/y', name: 'State', values: ['A', 'B'] },
    ]);
  });

  test.each([
    ['{"expected":{"NOPE-1":"x"}}', /unknown requirement NOPE-1/],
    ['{"expected":{"EP-1":5}}', /reason for "expected.EP-1" must be a string/],
    ['{"writable":["no-colon"]}', /"writable.0" must be PATH:ATTR/],
    ['{"expected":{},"colour":1}', /unknown member "colour"/],
    ['not json', /not valid JSON/],
    ['[]', /not a JSON object/],
  ])('%s is refused in one sentence', async (content, message) => {
    await expect(loadExpectations(await file(content))).rejects.toThrow(message);
  });
});
