/**
 * `report` as a user meets it, on a run folder made from fixture results: each mistake is one
 * sentence naming the next step with exit 2 and no stack trace; an interrupted run's attestation
 * says so when verified; --sign signs current reports as they are.
 */
import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Results } from '../../client/results.js';
import { reportContext, writeReports } from '../../report/outputs.js';
import { resultsWith, temporaryFolders } from '../report/fixture.js';
import { cli } from '../support/cli.js';

const folders = temporaryFolders();
let root: string;
/** A finished run's folder, rendered. */
let run: string;
/** A run stopped by SIGINT, rendered. */
let stopped: string;

async function runFolder(name: string, results: Results): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir);
  await writeFile(join(dir, 'results.json'), JSON.stringify(results));
  await writeReports(await reportContext({ dir, results, secrets: [] }));
  return dir;
}

beforeAll(async () => {
  root = await folders.make('bmc-report-cli-');
  run = await runFolder('run', resultsWith());
  const interrupted = resultsWith({ 'EP-5': { verdict: 'NOT_TESTED', reason: 'not run: the run was interrupted (SIGINT)' } });
  interrupted.requirements.find((r) => r.id === 'EP-2')!.tests.push({ name: '[EP-2] second', verdict: 'NOT_TESTED', reason: 'not run' });
  stopped = await runFolder('stopped', { ...interrupted, interrupted: { signal: 'SIGINT', at: '2026-01-02T03:05:00.000Z' } });
  await mkdir(join(root, 'empty'));
  await mkdir(join(root, 'hollow'));
  await writeFile(join(root, 'hollow', 'results.json'), '{"requirements":[],"summary":{}}');
  const keygen = await cli(['report', '--keygen', join(root, 'lab')]);
  expect(keygen.code, keygen.stderr).toBe(0);
  const signed = await cli(['report', '--in', run, '--sign', join(root, 'lab.key'), '--no-html']);
  expect(signed.code, signed.stderr).toBe(0);
});
afterAll(() => folders.removeAll());

describe('mistakes: one sentence naming the next step, exit 2', () => {
  const cases: Array<[string, () => string[], RegExp]> = [
    [
      'the public key given to --sign',
      () => ['--in', run, '--sign', join(root, 'lab.pub'), '--no-html'],
      /lab\.pub is a public key: --sign takes the private PREFIX\.key/,
    ],
    [
      'a file that is no key given to --sign',
      () => ['--in', run, '--sign', join(run, 'summary.md'), '--no-html'],
      /summary\.md is not a private key in PEM/,
    ],
    [
      'a key given as the attestation',
      () => ['--verify', join(root, 'lab.pub'), '--key', join(root, 'lab.pub')],
      /lab\.pub is a key: --verify takes the attestation\.intoto\.json/,
    ],
    [
      'a results.json given as the attestation',
      () => ['--verify', join(run, 'results.json'), '--key', join(root, 'lab.pub')],
      /results\.json is not an attestation/,
    ],
    ['a missing attestation', () => ['--verify', join(root, 'none.json'), '--key', join(root, 'lab.pub')], /^There is no attestation at /],
    [
      'a file that is no key given to --key',
      () => ['--verify', run, '--key', join(run, 'summary.md')],
      /is not a public key in PEM: --key takes/,
    ],
    [
      '--in a folder that is not there',
      () => ['--in', join(root, 'nowhere')],
      /^There is no folder .*nowhere: --in takes the --out folder of a run/,
    ],
    ['--in a file', () => ['--in', join(run, 'results.json')], /results\.json is a file: --in takes a run's folder/],
    [
      '--in a folder without a run',
      () => ['--in', join(root, 'empty')],
      /^There is no results file at .*empty\/results\.json; run "bmc-conformance run" first\.$/,
    ],
    [
      'a results.json that is none',
      () => ['--in', join(root, 'hollow')],
      /hollow\/results\.json is not a results\.json of "bmc-conformance run"/,
    ],
    [
      '--previous a results.json that is none',
      () => ['--in', run, '--previous', join(root, 'hollow'), '--no-html'],
      /is not a results\.json/,
    ],
    [
      '--keygen into a folder that is not there',
      () => ['--keygen', join(root, 'nowhere', 'lab')],
      /^There is no folder .*nowhere for the key pair/,
    ],
    ['--key without --verify', () => ['--in', run, '--key', join(root, 'lab.pub'), '--no-html'], /^--key goes with --verify/],
    [
      '--verify with --sign',
      () => ['--verify', run, '--key', join(root, 'lab.pub'), '--sign', join(root, 'lab.key')],
      /^--verify checks an attestation and --sign writes one/,
    ],
  ];
  test.each(cases)('%s', async (_name, args, sentence) => {
    const r = await cli(['report', ...args()]);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(sentence);
    expect(lines[0]).toMatch(/[.!?]$/);
  });
});

describe('attestations', () => {
  test("an interrupted run's attestation says, when verified, that the run was interrupted and what was partly judged", async () => {
    const signed = await cli(['report', '--in', stopped, '--sign', join(root, 'lab.key'), '--no-html']);
    expect(signed.code, signed.stderr).toBe(0);
    const r = await cli(['report', '--verify', join(stopped, 'attestation.intoto.json'), '--key', join(root, 'lab.pub')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `(target https://bmc.example:443, 0 FAIL, 1 NOT_TESTED; INTERRUPTED by SIGINT at 2026-01-02T03:05:00.000Z; 1 partly judged)`,
    );
    expect(r.stdout).toContain('  judged on part of their tests (some did not run): EP-2\n');
  });

  test('--sign signs reports already rendered from this results.json as they are, and renders them when results.json is newer', async () => {
    const summary = join(run, 'summary.html');
    await utimes(join(run, 'results.json'), 1_000, 1_000);
    await utimes(summary, 2_000, 2_000);
    await utimes(join(run, 'junit.xml'), 2_000, 2_000);
    const asTheyAre = await cli(['report', '--in', run, '--sign', join(root, 'lab.key')]);
    expect(asTheyAre.code, asTheyAre.stderr).toBe(0);
    expect(asTheyAre.stdout).toContain('(already rendered from this results.json: signed as it is)');
    expect((await stat(summary)).mtimeMs).toBe(2_000_000);
    await utimes(join(run, 'results.json'), 3_000, 3_000);
    const rendered = await cli(['report', '--in', run, '--sign', join(root, 'lab.key'), '--no-html']);
    expect(rendered.code, rendered.stderr).toBe(0);
    expect((await stat(summary)).mtimeMs).toBeGreaterThan(3_000_000);
    const verified = await cli(['report', '--verify', run, '--key', join(root, 'lab.pub')]);
    expect(verified.stdout, verified.stderr).toMatch(/^valid: .*; not interrupted\)$/m);
    expect(await readFile(join(run, 'attestation.intoto.json'), 'utf8')).toContain('"payloadType"');
  });
});

test('report --help names --baseline, the former name of --previous', async () => {
  const r = await cli(['report', '--help']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/--baseline is its\s+former name/);
});
