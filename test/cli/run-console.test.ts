/**
 * What `run` prints, as a user sees it: a progress total known before the first test and equal to
 * the tests a selection runs; a line per area in a log or with CI set, a status line on a terminal
 * (kept apart from the verdict lines); the simulator's stack traces in its log file, never on the
 * console.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { cli, type Ran } from '../support/cli.js';

const ERASE = '\r\x1b[2K';
const VERDICT = /^ {2}(pass|FAIL|warn|n\/t |xfail|XPASS) {2}\[/;
const AREA_LINE = /^area (\S+): (\d+) tests in .*; (\d+) of (\d+) done/;
const STACK_FRAME = /^\s+at /m;
/** Each test spawns a whole run; a busy machine may take a while. */
const RUN_TIMEOUT_MS = 90_000;

vi.setConfig({ testTimeout: RUN_TIMEOUT_MS });

let dir: string;
/** NODE_OPTIONS that make the run's stdout claim to be a terminal. */
let asTerminal: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bmc-run-console-'));
  const preload = join(dir, 'tty.mjs');
  await writeFile(preload, 'process.stdout.isTTY = true;\n');
  asTerminal = `--import=${pathToFileURL(preload).href}`;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What a terminal shows on each line: the text after the line's last erase, less other escapes (vitest hides the cursor). */
function visibleLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => (line.includes(ERASE) ? line.slice(line.lastIndexOf(ERASE) + ERASE.length) : line))
    .map((line) => line.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''));
}

function verdictLines(ran: Ran): string[] {
  return visibleLines(ran.stdout).filter((l) => VERDICT.test(l));
}

/** [tests, done, total] of each area line. */
function areaLines(ran: Ran): number[][] {
  return visibleLines(ran.stdout).flatMap((l) => {
    const m = AREA_LINE.exec(l);
    return m ? [[Number(m[2]), Number(m[3]), Number(m[4])]] : [];
  });
}

function run(out: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return cli(['run', '--seed', '20261123', '--out', join(dir, out), ...args], { CI: '', NODE_OPTIONS: '', ...env });
}

describe('in a log (stdout not a terminal)', () => {
  test('--requirements: each area line counts out of the tests the selection runs, known from the first', async () => {
    const ran = await run('requirements', ['--only', 'envelope,objects', '--requirements', 'EP-3,ENV-1']);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const verdicts = verdictLines(ran).length;
    const areas = areaLines(ran);
    expect(verdicts).toBeGreaterThan(1);
    expect(areas.length).toBeGreaterThan(1);
    // The same total on every line, the first area's included: it was known before the first test.
    expect(new Set(areas.map(([, , total]) => total))).toEqual(new Set([verdicts]));
    // The tests of the areas add up to it, and the last line says all of them are done.
    expect(areas.reduce((sum, [tests]) => sum + tests!, 0)).toBe(verdicts);
    expect(areas.at(-1)!.slice(1)).toEqual([verdicts, verdicts]);
    expect(ran.stdout).not.toContain(ERASE);
    // Nothing went wrong in the simulator: no log file, none named.
    expect(ran.stdout).not.toContain('simulator log:');
    expect(existsSync(join(dir, 'requirements', 'simulator.log'))).toBe(false);
  });

  test("a fault's deliberate 500: its stack trace goes to simulator.log, named once, and never to the console", async () => {
    const ran = await run('fault', ['--only', 'errors', '--fault', 'malformed-json-500']);
    expect(ran.code, ran.stdout + ran.stderr).toBe(1);
    const log = await readFile(join(dir, 'fault', 'simulator.log'), 'utf8');
    expect(log.split('\n').filter((l) => l.includes('internal error on')).length).toBeGreaterThan(0);
    expect(log).toMatch(STACK_FRAME);
    expect(ran.stdout + ran.stderr).not.toMatch(STACK_FRAME);
    expect(ran.stdout + ran.stderr).not.toMatch(/^simulator: /m);
    const named = ran.stdout.split('\n').filter((l) => l.startsWith('simulator log: '));
    expect(named).toHaveLength(1);
    expect(named[0]).toContain(join(dir, 'fault', 'simulator.log'));
  });
});

describe('on a terminal', () => {
  test('with CI set: a line per area, no status line', async () => {
    const ran = await run('ci', ['--only', 'envelope,delete'], { CI: 'true', NODE_OPTIONS: asTerminal });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const verdicts = verdictLines(ran).length;
    const areas = areaLines(ran);
    // The two areas, then the run-wide oracle.
    expect(areas).toHaveLength(3);
    expect(new Set(areas.map(([, , total]) => total))).toEqual(new Set([verdicts]));
    expect(ran.stdout).not.toContain(ERASE);
  });

  test('without CI: a status line from before the first test, out of the total run, never beside a verdict line', async () => {
    const ran = await run('tty', ['--only', 'envelope'], { NODE_OPTIONS: asTerminal });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const verdicts = verdictLines(ran).length;
    expect(verdicts).toBeGreaterThan(1);
    const frames = ran.stdout.split(ERASE).filter((f) => / tests, \d+:\d\d elapsed/.test(f));
    expect(frames.length).toBeGreaterThan(verdicts);
    // The first frame, drawn before any verdict line, already has the whole total.
    expect(frames[0]).toMatch(new RegExp(`^starting: 0/${verdicts} tests`));
    expect(ran.stdout.indexOf(frames[0]!)).toBeLessThan(ran.stdout.indexOf(verdictLines(ran)[0]!));
    expect(frames.filter((f) => !f.includes(`/${verdicts} tests`))).toHaveLength(0);
    // Each test named while it ran (by its requirements: the oracle's name those the envelope's do).
    const running = new Set(frames.flatMap((f) => /; running (\[[A-Z0-9 -]+\])/.exec(f)?.[1] ?? []));
    expect(running).toEqual(new Set(verdictLines(ran).map((l) => /\[[A-Z0-9 -]+\]/.exec(l)?.[0])));
    // Erased before each verdict line and at the end: no line left showing it.
    expect(visibleLines(ran.stdout).filter((l) => / tests, \d+:\d\d elapsed/.test(l))).toHaveLength(0);
    expect(areaLines(ran)).toHaveLength(0);
  });
});
