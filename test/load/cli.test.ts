/**
 * `load` as a user meets it: bad flags, an unreachable target, a wrong password and an untrusted
 * certificate each give one plain sentence and exit 2 within seconds.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { ROOT, cli, ensureBuilt } from './cli-process.js';
import { hangAfter } from '../support/hang.js';

const PASSWORD = 'load-cli-Secret-2b';

let sim: RunningSimulator;

beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ password: PASSWORD });
}, hangAfter(120_000));

afterAll(async () => {
  await sim.close();
});

function expectSentence(stderr: string): void {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^[A-Z-].*[.!?]$/);
}

test.each([
  [['--scenario', 'get-everything']],
  [['--rate', 'fast']],
  [['--ramp', '5:50']],
  [['--soak', '30x']],
  [['--rate', '10', '--ramp', '1:2:3']],
  [['--fault', 'slow-everything']],
])('usage error %j: one sentence, exit 2', async (args) => {
  const r = await cli(args);
  expect(r.code, r.stdout + r.stderr).toBe(2);
  expectSentence(r.stderr);
});

test('an unreachable target', async () => {
  const r = await cli(['--target', 'https://127.0.0.1:1', '--insecure']);
  expect(r.code).toBe(2);
  expectSentence(r.stderr);
  expect(r.ms).toBeLessThan(20_000);
});

test('a wrong password', async () => {
  const r = await cli(['--target', sim.url, '--insecure', '--password', 'not-it']);
  expect(r.code).toBe(2);
  expectSentence(r.stderr);
  expect(r.stderr).toMatch(/refused/i);
  expect(r.stderr).not.toContain('not-it');
});

test('a certificate that is not trusted', async () => {
  const r = await cli(['--target', sim.url, '--password', PASSWORD]);
  expect(r.code).toBe(2);
  expectSentence(r.stderr);
  expect(r.stderr).toMatch(/--insecure/);
});

test('a thresholds file that names an unknown scenario', async () => {
  const file = join(ROOT, 'package.json');
  const r = await cli(['--target', sim.url, '--insecure', '--password', PASSWORD, '--thresholds', file]);
  expect(r.code).toBe(2);
  expectSentence(r.stderr);
  expect(r.stderr).toMatch(/unknown scenario name/);
});

test('asked connections are capped by --max-connections and the cap is reported', async () => {
  const out = await mkdtemp(join(tmpdir(), 'bmc-load-cli-'));
  const r = await cli([
    '--target',
    sim.url,
    '--insecure',
    '--password',
    PASSWORD,
    '--scenario',
    'get-attr',
    '--duration',
    '1',
    '--connections',
    '50',
    '--max-connections',
    '3',
    '--max-requests',
    '200',
    '--out',
    out,
  ]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toMatch(/closed loop, 3 connections/);
  expect(r.stdout).toMatch(/50 connections asked, capped at 3 by --max-connections/);
  await rm(out, { recursive: true, force: true });
});
