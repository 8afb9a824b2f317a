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
    expect(reqs[0]!.reason).toBe('expected FAIL not seen, nor refuted: the areas writes, fuzz did not run (--only)');
    expect(unexpectedFailures(reqs, true)).toEqual([]);
    // A FAIL is still seen where it shows.
    expect(applyExpectations([result('EP-9', 'FAIL')], exp, () => 'partial')[0]!.verdict).toBe('XFAIL');
  });

  test('a pass of some of the tests (others NOT_TESTED) is no XPASS: it stays PASS, partly judged, with the expectation noted', async () => {
    const exp = await loadExpectations(await file('{"expected":{"EV-3":"InterfacesAdded names the ObjectManager"}}'));
    const upload: TestOutcome = {
      name: '[EV-3] an uploaded version is announced',
      file: 'f',
      requirements: ['EV-3'],
      verdict: 'NOT_TESTED',
      reason: 'needs the destructive profile; this run uses safe',
    };
    const put: TestOutcome = {
      name: '[EV-2 EV-3] a PUT shows on every subscriber',
      file: 'f',
      requirements: ['EV-2', 'EV-3'],
      verdict: 'PASS',
    };
    const [partly] = applyExpectations([rollUp(requirement('EV-3'), [upload, put], 'x')], exp);
    expect(partly).toMatchObject({
      verdict: 'PASS',
      expected: 'InterfacesAdded names the ObjectManager',
      reason: 'expected FAIL not seen, nor refuted: 1 of its 2 tests did not judge it (needs the destructive profile; this run uses safe)',
      partly: { notJudged: [{ test: upload.name, reason: 'needs the destructive profile; this run uses safe' }] },
    });
    expect(partly!.reason).not.toContain('update');
    expect(unexpectedFailures([partly!], true)).toEqual([]);
    // Every test judged it and none failed: now it is seen fixed.
    const judged = applyExpectations([rollUp(requirement('EV-3'), [{ ...upload, verdict: 'PASS', reason: undefined }, put], 'x')], exp);
    expect(judged[0]).toMatchObject({ verdict: 'XPASS', reason: expect.stringMatching(/but now PASS; update /) as unknown });
    // A WARN that rests on some tests is no XPASS either; a FAIL where it shows is still an XFAIL.
    const warned = applyExpectations([rollUp(requirement('EV-3'), [upload, { ...put, verdict: 'WARN', reason: 'w' }], 'x')], exp);
    expect(warned[0]).toMatchObject({
      verdict: 'WARN',
      reason: expect.stringMatching(/^expected FAIL not seen, nor refuted: 1 of its 2 tests .*; w$/) as unknown,
    });
    const failed = applyExpectations([rollUp(requirement('EV-3'), [upload, { ...put, verdict: 'FAIL', reason: 'f' }], 'x')], exp);
    expect(failed[0]!.verdict).toBe('XFAIL');
  });

  test('tests not judged and areas not run are both named', async () => {
    const exp = await loadExpectations(await file('{"expected":{"ENV-2":"500 with 400 Bad Request"}}'));
    const outcomes: TestOutcome[] = [
      { name: 'a', file: 'f', requirements: ['ENV-2'], verdict: 'PASS' },
      { name: 'b', file: 'f', requirements: ['ENV-2'], verdict: 'NOT_TESTED', reason: 'no named writable' },
    ];
    const [r] = applyExpectations(
      [rollUp(requirement('ENV-2'), outcomes, 'x')],
      exp,
      () => 'the area fuzz judging it did not run (--only)',
    );
    expect(r!.reason).toBe(
      'expected FAIL not seen, nor refuted: 1 of its 2 tests did not judge it (no named writable); the area fuzz judging it did not run (--only)',
    );
  });

  test('a starting file keeps the expectations the run could not refute and drops those it saw fixed', async () => {
    const exp = await loadExpectations(
      await file('{"expected":{"EV-3":"names the ObjectManager","EP-9":"500 on PUT object","STATE-1":"reboots slowly"}}'),
    );
    const upload: TestOutcome = { name: 'u', file: 'f', requirements: ['EV-3'], verdict: 'NOT_TESTED', reason: 'needs destructive' };
    const reqs = applyExpectations(
      [
        rollUp(requirement('EV-3'), [upload, { name: 'p', file: 'f', requirements: ['EV-3'], verdict: 'PASS' }], 'x'),
        result('EP-9', 'PASS'),
        rollUp(requirement('STATE-1'), [], 'needs the destructive profile'),
      ],
      exp,
    );
    expect(reqs.map((r) => r.verdict)).toEqual(['PASS', 'XPASS', 'NOT_TESTED']);
    expect(JSON.parse(expectationsFrom(reqs)).expected).toEqual({ 'EV-3': 'names the ObjectManager', 'STATE-1': 'reboots slowly' });
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
