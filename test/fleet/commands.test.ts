/** The fleet commands as a user meets them: one-sentence usage errors, and signals passed to the runs. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { packageRoot } from '../../client/package-root.js';
import type { FleetMatrix } from '../../report/fleet/matrix.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { CLI, cli } from '../support/cli.js';
import { SCRIPT, startUnderTerminal, until } from '../load/cli-process.js';
import { call, login } from '../simulator/helpers.js';
import { hangAfter } from '../support/hang.js';

const PASSWORD = 'fleet-cmd-Secret-51c';
const PROFILE = join(packageRoot(), 'profiles', 'simulator.json');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bmc-fleet-cmd-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function expectSentence(stderr: string): void {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^[A-Z-].*[.!?]$/);
}

async function targetsFile(name: string, targets: unknown[]): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, JSON.stringify({ targets }));
  return file;
}

// Each case is a CLI start that waits for nothing: side by side.
describe.concurrent('usage errors: exit 2, one sentence, before any run', () => {
  let ok: string;
  beforeAll(async () => {
    ok = await targetsFile('ok.json', [{ url: 'https://127.0.0.1:1', passwordEnv: 'X', targetProfile: PROFILE }]);
  });

  test('a password written into the targets file', async () => {
    const file = await targetsFile('inline.json', [
      { name: 'rack1', url: 'https://127.0.0.1:1', password: PASSWORD, passwordEnv: 'X', targetProfile: PROFILE },
    ]);
    const r = await cli(['run', '--targets', file, '--out', join(dir, 'inline')]);
    expect(r.code).toBe(2);
    expectSentence(r.stderr);
    expect(r.stderr).toMatch(/^Target "rack1" in .* gives its password inline; .*"passwordEnv"\.$/m);
    expect(r.stderr + r.stdout).not.toContain(PASSWORD);
  });

  test.each([
    [['run', '--targets', 'T', '--password', 'x'], /^--password does not go with --targets/],
    [['run', '--shard', '1/2'], /^--shard and --fleet-concurrency go with --targets FILE\.$/],
    [['report', '--merge', 'nowhere'], /^There is no fleet\.json in .*nowhere; /],
  ])('%j', async (args, message) => {
    const r = await cli(args.map((a) => (a === 'T' ? ok : a)));
    expect(r.code).toBe(2);
    expectSentence(r.stderr);
    expect(r.stderr.trim()).toMatch(message);
  });
});

describe('signals', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    // Every request waits 100 ms: the runs are still under way when the signal comes.
    sim = await startSimulator({ log: () => {}, password: PASSWORD, faults: ['slow-requests'] });
  });
  afterAll(async () => {
    await sim?.close();
  });

  test(
    'SIGTERM to the fleet reaches each run under way; the rest never start; the fleet reports them and exits 2',
    async () => {
      const entry = (name: string) => ({ name, url: sim.url, passwordEnv: 'FLEET_SIG_PW', targetProfile: PROFILE, insecure: true });
      const file = await targetsFile('slow.json', [entry('a'), entry('b'), entry('c')]);
      const out = join(dir, 'slow');
      let children: number[] = [];
      const ran = await cli(
        ['run', '--targets', file, '--fleet-concurrency', '2', '--only', 'listings', '--out', out],
        { FLEET_SIG_PW: PASSWORD },
        90_000,
        (pid) => {
          const poll = setInterval(() => {
            children = childrenOf(pid);
            if (children.length < 2) return;
            clearInterval(poll);
            process.kill(pid, 'SIGTERM');
          }, 100);
        },
      );
      expect(ran.code, ran.stdout + ran.stderr).toBe(2);
      expect(children).toHaveLength(2);
      for (const pid of children) expect(alive(pid), `run ${pid} outlived the fleet`).toBe(false);
      expect(ran.stdout).toContain('interrupted (SIGTERM)');
      const fleet = JSON.parse(await readFile(join(out, 'fleet.json'), 'utf8')) as FleetMatrix;
      // A run takes the signal by its handler (exit 143), or dies by it when it came while it was
      // still starting, before any handler (signal SIGTERM): either way it is reported as stopped.
      const stopped = /^stopped by the fleet's interruption \((signal SIGTERM|exit code 143)\)$/;
      expect(fleet.targets.map((t) => [t.name, t.status, stopped.test(t.message ?? '') ? 'stopped' : t.message])).toEqual([
        ['a', 'interrupted', 'stopped'],
        ['b', 'interrupted', 'stopped'],
        ['c', 'interrupted', 'not started: the fleet was interrupted'],
      ]);
    },
    hangAfter(40_000),
  );
});

describe('a terminal Ctrl-C', () => {
  // A simulator per target: two runs writing one attribute of one target would undo each other's restores.
  const sims: Record<'a' | 'b', RunningSimulator | undefined> = { a: undefined, b: undefined };
  beforeAll(async () => {
    for (const name of ['a', 'b'] as const)
      sims[name] = await startSimulator({ log: () => {}, password: PASSWORD, faults: ['slow-requests'] });
  });
  afterAll(async () => {
    for (const sim of Object.values(sims)) await sim?.close();
  });

  test.skipIf(!existsSync(SCRIPT))(
    'Ctrl-C on a terminal reaches each run once: both restore, write partial results, the fleet exits 2',
    async () => {
      const url = (name: 'a' | 'b') => sims[name]!.url;
      const entry = (name: 'a' | 'b') => ({ name, url: url(name), passwordEnv: 'FLEET_INT_PW', targetProfile: PROFILE, insecure: true });
      const file = await targetsFile('terminal.json', [entry('a'), entry('b')]);
      const out = join(dir, 'terminal');
      const sessions = { a: await login(url('a'), 'root', PASSWORD), b: await login(url('b'), 'root', PASSWORD) };
      const before = { a: await attrOf(url('a'), sessions.a, ASSET_TAG), b: await attrOf(url('b'), sessions.b, ASSET_TAG) };
      const run = startUnderTerminal([CLI, 'run', '--targets', file, '--fleet-concurrency', '2', '--only', 'writes', '--out', out], {
        FLEET_INT_PW: PASSWORD,
      });
      // As a user would press it: while the runs are writing (a write of theirs is on a target).
      await until(async () => {
        if (run.child.exitCode !== null) throw new Error(`the fleet ended before writing: ${run.stdout()}`);
        const [a, b] = await Promise.all([attrOf(url('a'), sessions.a, ASSET_TAG), attrOf(url('b'), sessions.b, ASSET_TAG)]);
        return JSON.stringify(a) !== JSON.stringify(before.a) || JSON.stringify(b) !== JSON.stringify(before.b);
      }, 'a run to write');
      run.child.stdin!.write('\x03');
      const ran = await run.finished;
      expect(ran.code, ran.stdout + ran.stderr).toBe(2);
      const fleet = JSON.parse(await readFile(join(out, 'fleet.json'), 'utf8')) as FleetMatrix;
      expect(fleet.targets.map((t) => t.status)).toEqual(['interrupted', 'interrupted']);
      for (const name of ['a', 'b'] as const) {
        const log = await readFile(join(out, name, 'run.log'), 'utf8');
        expect(log, `${name}'s run took the signal twice`).not.toMatch(/SIGINT again/);
        const results = JSON.parse(await readFile(join(out, name, 'results.json'), 'utf8')) as { interrupted?: unknown };
        expect(results.interrupted, `${name} wrote no partial results`).toBeTruthy();
        expect(await attrOf(url(name), sessions[name], ASSET_TAG), `${name}: a write was left behind`).toEqual(before[name]);
      }
    },
    hangAfter(90_000),
  );
});

const ASSET_TAG = '/xyz/mgmt_project/inventory/system/attr/AssetTag';

async function attrOf(url: string, cookie: string, path: string): Promise<unknown> {
  return (await call(url, 'GET', path, { cookie })).body.data;
}

function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
