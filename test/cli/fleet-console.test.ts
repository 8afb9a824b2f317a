/**
 * What a fleet prints while it runs: a line as each target's run starts and one as it ends (its
 * status and verdict counts), nothing of the runs' own output, then the table.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { packageRoot } from '../../client/package-root.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { cli, type Ran } from '../support/cli.js';
import { hangAfter } from '../support/hang.js';

const NAMES = ['bmc-a', 'bmc-b'];
const PASSWORDS = ['console-Secret-a-71c2', 'console-Secret-b-0d94'];

let root: string;
let sims: RunningSimulator[] = [];
let ran: Ran;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'bmc-fleet-console-'));
  sims = await Promise.all(PASSWORDS.map((password) => startSimulator({ log: () => {}, password })));
  const targets = NAMES.map((name, i) => ({
    name,
    url: sims[i]!.url,
    passwordEnv: `CONSOLE_PW_${i}`,
    targetProfile: join(packageRoot(), 'profiles/simulator.json'),
    insecure: true,
  }));
  await writeFile(join(root, 'lab.json'), JSON.stringify({ targets }));
  ran = await cli(['run', '--targets', join(root, 'lab.json'), '--only', 'envelope', '--out', join(root, 'fleet')], {
    CONSOLE_PW_0: PASSWORDS[0],
    CONSOLE_PW_1: PASSWORDS[1],
  });
}, hangAfter(120_000));

afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
  await rm(root, { recursive: true, force: true });
});

test('a fleet of two prints one start line and one end line per target, the start first', () => {
  expect(ran.code, ran.stdout + ran.stderr).toBe(0);
  const lines = ran.stdout.split('\n');
  for (const name of NAMES) {
    const starts = lines.flatMap((l, i) => (new RegExp(`^\\[started [12]/2\\] ${name}  https://127\\.0\\.0\\.1:\\d+$`).test(l) ? [i] : []));
    const ends = lines.flatMap((l, i) => (new RegExp(`^\\[[12]/2\\] ${name}  passed  PASS \\d+, FAIL 0, .*  exit 0$`).test(l) ? [i] : []));
    expect(starts, ran.stdout).toHaveLength(1);
    expect(ends, ran.stdout).toHaveLength(1);
    expect(starts[0]!).toBeLessThan(ends[0]!);
  }
});

test('nothing else before the table: the heading, then the four target lines', () => {
  const lines = ran.stdout.split('\n');
  const table = lines.findIndex((l) => l.startsWith('| target'));
  expect(lines.slice(0, table).filter((l) => l.trim() !== '')).toHaveLength(1 + 2 * NAMES.length);
  expect(lines[0]).toMatch(/^bmc-conformance fleet: 2 of the 2 targets/);
  expect(ran.stderr).toBe('');
});
