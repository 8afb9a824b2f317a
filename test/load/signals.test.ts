/**
 * A load stopped by Ctrl-C (under a pseudo-terminal, as a user presses it) or by SIGTERM: the
 * first signal stops it, it puts back every value it wrote, writes the figures it has marked
 * interrupted, and exits 130 or 143, not 1 as a missed threshold would.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BmcClient } from '../../client/http.js';
import { jsonEqual } from '../../client/json.js';
import type { LoadDocument } from '../../load/load-document.js';
import { simulatorTargetProfile, startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { CLI, ensureBuilt, SCRIPT, start, startUnderTerminal, until, type Running } from './cli-process.js';
import { hangAfter } from '../support/hang.js';

const NS = 'mgmt_project';
const PASSWORD = 'load-signal-Secret-4d';
const WRITABLE = simulatorTargetProfile(NS).writable;

let sim: RunningSimulator;
let probe: BmcClient;
let out: string;

beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ password: PASSWORD });
  probe = new BmcClient({ baseUrl: sim.url, user: 'root', password: PASSWORD, insecure: true });
  await probe.login();
  out = await mkdtemp(join(tmpdir(), 'bmc-load-signal-'));
}, hangAfter(120_000));

afterAll(async () => {
  await probe.close();
  await sim.close();
  await rm(out, { recursive: true, force: true });
});

async function snapshot(): Promise<unknown[]> {
  return Promise.all(WRITABLE.map(async (w) => ((await probe.get(`${w.path}/attr/${w.name}`)).json as { data: unknown }).data));
}

/** A bounded write mix, then a read: at 50 writes/s for at most 30 s and 3,000 requests. */
function loadArgs(dir: string): string[] {
  return [
    CLI,
    'load',
    '--target',
    sim.url,
    '--insecure',
    '--password',
    PASSWORD,
    '--profile',
    'safe',
    ...WRITABLE.flatMap((w) => ['--writable', `${w.path}:${w.name}${w.values ? `=${w.values.join('|')}` : ''}`]),
    '--scenario',
    'write-mix,get-object',
    '--rate',
    '50',
    '--duration',
    '30',
    '--max-requests',
    '3000',
    '--out',
    dir,
  ];
}

/** Waits until the write mix has changed a value on the target: the load is writing. */
async function whileWriting(before: unknown[], run: Running): Promise<void> {
  await until(async () => {
    if (run.child.exitCode !== null) throw new Error(`the load ended before writing: ${run.stdout()}`);
    const now = await snapshot();
    return now.some((v, i) => !jsonEqual(v, before[i]));
  }, 'the write mix to change a value');
}

async function expectStoppedAndRestored(dir: string, signal: 'SIGINT' | 'SIGTERM', before: unknown[], stdout: string): Promise<void> {
  expect(stdout).toContain(`the run was interrupted (${signal}): restoring what it wrote`);
  expect(stdout).toMatch(new RegExp(`INTERRUPTED \\(${signal}\\): partial results of 1 of 2 scenario\\(s\\), 1 cut short`));
  expect(stdout).not.toMatch(/^FAIL/m);
  const doc = JSON.parse(await readFile(join(dir, 'load.json'), 'utf8')) as LoadDocument;
  expect(doc.interrupted?.signal).toBe(signal);
  expect(doc.verdict).toBe('interrupted');
  // The write mix was cut short with what it measured; the read after it never started.
  expect(doc.results.map((r) => [r.scenario, r.stoppedBy])).toEqual([['write-mix', 'interrupted']]);
  expect(doc.results[0]!.requests).toBeGreaterThan(0);
  // Each attribute the mix had written by then is put back (a signal early in the mix finds fewer written).
  const declared = WRITABLE.map((w) => `${w.path} ${w.name}`);
  const restored = doc.restores.map((r) => `${r.path} ${r.name}`);
  expect(restored.length).toBeGreaterThan(0);
  for (const r of restored) expect(declared).toContain(r);
  expect(doc.restores.filter((r) => !r.restored)).toEqual([]);
  expect(doc.failures).toEqual([]);
  const html = await readFile(join(dir, 'load.html'), 'utf8');
  expect(html).toContain(`INTERRUPTED (${signal})`);
  expect(html).toContain(`Stopped by ${signal}`);
  // Checked from outside: every attribute holds what it held before the load.
  const after = await snapshot();
  after.forEach((v, i) => expect(jsonEqual(v, before[i]), `${WRITABLE[i]!.path} ${WRITABLE[i]!.name}`).toBe(true));
}

test.skipIf(!existsSync(SCRIPT))('Ctrl-C on a terminal: the load stops, restores its writes, reports what it has, exit 130', async () => {
  const dir = join(out, 'sigint');
  const before = await snapshot();
  const run = startUnderTerminal(loadArgs(dir));
  await whileWriting(before, run);
  // On a terminal the load keeps one status line, rewritten in place every second.
  await until(() => run.stdout().includes('\x1b[K'), 'the status line');
  run.child.stdin!.write('\x03');
  const r = await run.finished;
  expect(r.code, r.stdout + r.stderr).toBe(130);
  await expectStoppedAndRestored(dir, 'SIGINT', before, r.stdout.replace(/\r\n/g, '\n'));
});

test('SIGTERM: the load stops, restores its writes, reports what it has, exit 143', async () => {
  const dir = join(out, 'sigterm');
  const before = await snapshot();
  const run = start(process.execPath, loadArgs(dir));
  await whileWriting(before, run);
  run.child.kill('SIGTERM');
  const r = await run.finished;
  expect(r.code, r.stdout + r.stderr).toBe(143);
  await expectStoppedAndRestored(dir, 'SIGTERM', before, r.stdout);
});
