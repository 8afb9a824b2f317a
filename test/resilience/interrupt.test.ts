/**
 * Ctrl-C in the middle of a safe-profile run against a target: the command restores what it
 * wrote, closes its sessions, writes a partial results.json marked interrupted (which `report`
 * renders), and exits 130 within seconds; the target's tree is as before. A second signal ends it
 * at once; SIGTERM exits 143.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BmcClient } from '../../client/http.js';
import { packageRoot } from '../../client/package-root.js';
import type { Results } from '../../client/results.js';
import { RESTORE_GRACE_MS } from '../../runner/run-channel.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { startChaosProxy, type ChaosProxy, type Fault } from '../chaos/proxy.js';
import { temporaryFolders } from '../report/fixture.js';
import { childEnv } from '../support/cli.js';
import { hangAfter } from '../support/hang.js';

const CLI = join(packageRoot(), 'dist', 'cli', 'main.js');
const PROFILE = join(packageRoot(), 'profiles', 'simulator.json');
/** A write to one of the simulator profile's writable attributes. */
const WRITE = /\/attr\/(AssetTag|Asserted|State|PowerCap|Resolved)$/;
/**
 * The request timeout of the runs whose reads stall: a stalled read left to it would hold the run
 * this long, so exiting sooner is the mechanism's doing however busy the machine (the other bounds
 * were wall-clock and broke beside other jobs).
 */
const STALL_MS = 60_000;

const folders = temporaryFolders();
let sim: RunningSimulator;
let proxy: ChaosProxy;
/** Called with each request the proxy passes on: the fault it meets, if any. */
let onRequest: (req: { method: string; path: string }) => Fault | undefined = () => undefined;

beforeAll(async () => {
  sim = await startSimulator();
  proxy = await startChaosProxy({
    upstream: sim.port,
    fault: (req) => onRequest(req),
  });
});
afterAll(async () => {
  await proxy.close();
  await sim.close();
  await folders.removeAll();
});

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
  /** From the first signal to the exit. */
  afterSignalMs: number;
}

interface Signalling {
  /** Sent at the run's `at`th write. */
  signal: NodeJS.Signals;
  at: number;
  /** Sent once more when the run took the first. */
  again?: boolean;
  /** Reads after the signal stall: the first, or every one. */
  stall?: 'first' | 'all';
}

function run(args: string[], how: Signalling): Promise<Exit> {
  let again = how.again ?? false;
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [CLI, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...childEnv(), BMC_URL: '', BMC_PASSWORD: '', GITHUB_STEP_SUMMARY: '' },
    });
    let stdout = '';
    let stderr = '';
    let signalledAt = 0;
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (again && stdout.includes('a second signal exits at once')) {
        again = false;
        child.kill(how.signal);
      }
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    let writes = 0;
    onRequest = (req) => {
      if (signalledAt && how.stall && req.method === 'GET') {
        if (how.stall === 'first') how.stall = undefined;
        return { kind: 'stall' };
      }
      if (req.method !== 'PUT' || !WRITE.test(req.path) || ++writes !== how.at) return undefined;
      signalledAt = performance.now();
      child.kill(how.signal);
      return undefined;
    };
    // Well past every stall, so a run that waits one out exits on its own and says how long it took.
    const guard = setTimeout(() => child.kill('SIGKILL'), 2 * STALL_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      onRequest = () => undefined;
      resolve({ code, stdout, stderr, afterSignalMs: signalledAt ? performance.now() - signalledAt : Infinity });
    });
  });
}

/**
 * What an interrupted run prints after its progress, in a few lines: what ran, what did not (the
 * areas not reached among it), where the partial results are, and the exit. No line per test or
 * requirement it did not run, and no area line claiming more done than ran.
 */
function expectShortConsole(stdout: string, signal: string, code: number): void {
  const lines = stdout.trimEnd().split('\n');
  const verdicts = lines.filter((l) => /^ {2}(pass|FAIL|warn|n\/t |xfail|XPASS) {2}\[/.test(l));
  expect(verdicts.filter((l) => l.includes('not run:'))).toEqual([]);
  for (const area of lines.filter((l) => l.startsWith('area '))) {
    const done = Number(/; (\d+) of \d+ done/.exec(area)?.[1]);
    expect(done, area).toBeLessThanOrEqual(verdicts.length);
  }
  const lastProgress = Math.max(...lines.map((l, i) => (l.startsWith('area ') || verdicts.includes(l) ? i : -1)));
  const afterProgress = lines.slice(lastProgress + 1);
  expect(afterProgress.filter((l) => / -> /.test(l))).toEqual([]);
  expect(afterProgress.length, afterProgress.join('\n')).toBeLessThanOrEqual(12);
  expect(afterProgress.filter((l) => /^ran: \d+ of \d+ tests/.test(l))).toHaveLength(1);
  expect(afterProgress.filter((l) => /^not run: \d+ tests, \d+ requirements? NOT_TESTED/.test(l))).toHaveLength(1);
  expect(afterProgress.some((l) => /^results: .*results\.json \(partial: the run was interrupted\)$/.test(l))).toBe(true);
  expect(lines.at(-1)).toBe(`exit ${code}: the run was interrupted (${signal})`);
}

function runArgs(out: string, extra: string[] = []): string[] {
  return [
    'run',
    '--target',
    proxy.url,
    '--insecure',
    '--password',
    '0penBmc',
    '--target-profile',
    PROFILE,
    '--profile',
    'safe',
    '--fuzz-runs',
    '20',
    '--out',
    out,
    ...extra,
  ];
}

/** The whole tree as enumerate shows it, without the clocks (Elapsed), which move by themselves. */
async function tree(): Promise<unknown> {
  const client = new BmcClient({ baseUrl: sim.url, user: 'root', password: '0penBmc', insecure: true });
  await client.login();
  const res = await client.get('/xyz/mgmt_project/enumerate');
  await client.logout();
  await client.close();
  return JSON.parse(res.text, (key, value: unknown) => (key === 'Elapsed' ? undefined : value));
}

test(
  'SIGINT mid-writes: exit 130 within seconds, every write restored, sessions closed, partial results readable by report',
  async () => {
    const before = await tree();
    const sessions = { opened: proxy.stats.sessionsOpened, closed: proxy.stats.sessionsClosed };
    const out = await folders.make('bmc-interrupt-');
    const exit = await run(runArgs(out), { signal: 'SIGINT', at: 2 });

    expect(exit.code, exit.stderr).toBe(130);
    expect(exit.afterSignalMs).toBeLessThan(10_000);
    expect(exit.stderr).toBe('');
    expect(exit.stdout).toContain('the run was interrupted (SIGINT): restoring what it wrote and closing its sessions');
    expect(exit.stdout).not.toMatch(/^\s+at /m);
    expectShortConsole(exit.stdout, 'SIGINT', 130);
    expect(await tree()).toEqual(before);
    expect(proxy.stats.sessionsClosed - sessions.closed).toBe(proxy.stats.sessionsOpened - sessions.opened);

    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as Results;
    expect(results.interrupted).toMatchObject({ signal: 'SIGINT' });
    expect(results.interrupted?.unfinished).toBeUndefined();
    // What ran before the signal keeps its verdict; what did not run says so.
    expect(results.summary.PASS).toBeGreaterThan(0);
    expect(results.requirements.filter((r) => r.verdict === 'FAIL')).toEqual([]);
    const notRun = results.requirements.filter((r) => r.reason === 'not run: the run was interrupted (SIGINT)');
    expect(notRun.length).toBeGreaterThan(0);

    const report = await new Promise<number | null>((resolve) => {
      spawn(process.execPath, [CLI, 'report', '--in', out, '--no-html'], {
        stdio: 'ignore',
        env: { ...childEnv(), GITHUB_STEP_SUMMARY: '' },
      }).on('close', resolve);
    });
    expect(report).toBe(0);
    expect(await readFile(join(out, 'summary.html'), 'utf8')).toContain('not run: the run was interrupted (SIGINT)');
  },
  hangAfter(90_000),
);

test(
  'a test stuck on a stalled answer is hurried: its request is abandoned, its write restored, it is NOT_TESTED',
  async () => {
    const before = await tree();
    const out = await folders.make('bmc-interrupt-');
    const exit = await run(runArgs(out, ['--timeout', String(STALL_MS)]), { signal: 'SIGINT', at: 1, stall: 'first' });
    expect(exit.code, exit.stderr).toBe(130);
    // Abandoned, not waited out; and not cut off by the grace either (`unfinished` below).
    expect(exit.afterSignalMs).toBeLessThan(STALL_MS);
    expect(await tree()).toEqual(before);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as Results;
    const cut = results.requirements
      .flatMap((r) => r.tests)
      .filter((t) => /the run was interrupted \(SIGINT\) while this test ran/.test(t.reason ?? ''));
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.every((t) => t.verdict === 'NOT_TESTED')).toBe(true);
    expect(results.interrupted?.unfinished).toBeUndefined();
  },
  hangAfter(2 * STALL_MS + 30_000),
);

test(
  'SIGTERM exits 143; a second signal exits at once',
  async () => {
    const out = await folders.make('bmc-interrupt-');
    const term = await run(runArgs(out), { signal: 'SIGTERM', at: 1 });
    expect(term.code).toBe(143);
    expectShortConsole(term.stdout, 'SIGTERM', 143);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as Results;
    expect(results.interrupted).toMatchObject({ signal: 'SIGTERM' });

    const twice = await run(runArgs(await folders.make('bmc-interrupt-')), { signal: 'SIGINT', at: 1, again: true });
    expect(twice.code).toBe(130);
    expect(twice.stderr.trim()).toBe('SIGINT again: exiting at once; what the run wrote may be left on the target.');
  },
  hangAfter(90_000),
);

test(
  'a test that cannot even restore is cut off after the grace and named: the run still ends',
  async () => {
    const out = await folders.make('bmc-interrupt-');
    const exit = await run(runArgs(out, ['--timeout', String(STALL_MS)]), { signal: 'SIGINT', at: 1, stall: 'all' });
    expect(exit.code, exit.stderr).toBe(130);
    // Cut off once the grace ran out, well before its stalled restore would have timed out.
    expect(exit.afterSignalMs).toBeGreaterThanOrEqual(RESTORE_GRACE_MS);
    expect(exit.afterSignalMs).toBeLessThan(STALL_MS);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as Results;
    expect(results.interrupted?.unfinished).toHaveLength(1);
    expect(exit.stdout).toContain(`${results.interrupted!.unfinished![0]} did not finish restoring what it wrote before the run ended`);
  },
  hangAfter(2 * STALL_MS + 30_000),
);
