/** The `load` command as a user starts it: the built CLI in a process of its own. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../client/package-root.js';
import { childEnv } from '../support/cli.js';
import { timeFactor } from '../support/hang.js';

export const ROOT = packageRoot();
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** A process left running this long is killed: a test that hangs fails instead of holding the suite. */
const KILL_AFTER_MS = 90_000 * timeFactor();

/**
 * The CLI runs from dist/: build it when a source it depends on is newer than the last build (its
 * state file is written by every build; an output is not when its source did not change).
 */
export function ensureBuilt(): void {
  const newest = (dir: string): number => Math.max(...readdirSync(join(ROOT, dir)).map((f) => statSync(join(ROOT, dir, f)).mtimeMs));
  const built = join(ROOT, 'dist', '.tsbuildinfo');
  if (
    existsSync(CLI) &&
    existsSync(built) &&
    statSync(built).mtimeMs >= Math.max(...['load', 'cli', 'simulator', 'client', 'runner'].map(newest))
  )
    return;
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', join(ROOT, 'tsconfig.json')], {
    stdio: 'ignore',
  });
}

export interface Finished {
  /** The exit code; -1 when the process was killed for running too long. */
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface Running {
  child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  finished: Promise<Finished>;
}

/** Starts `file args`, its output collected; BMC_* from the environment are cleared. */
export function start(file: string, args: string[], env: NodeJS.ProcessEnv = {}): Running {
  const started = Date.now();
  const child = spawn(file, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...childEnv(), BMC_URL: '', BMC_PASSWORD: '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const finished = new Promise<Finished>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - started });
    });
  });
  return { child, stdout: () => stdout, finished };
}

/** Where util-linux's script is: the tests that need a terminal skip without it. */
export const SCRIPT = '/usr/bin/script';

/**
 * `node ARGS` on a pseudo-terminal of its own, as a user starts it: ^C written to the child's
 * stdin is the terminal's interrupt, sent by its line discipline to the whole foreground process
 * group once. exec: the shell gives way, so that the signal meets the command alone; -e: script
 * exits as the command did.
 */
export function startUnderTerminal(args: string[], env: NodeJS.ProcessEnv = {}): Running {
  const quote = (a: string): string => `'${a.replace(/'/g, `'\\''`)}'`;
  const command = `exec ${[process.execPath, ...args].map(quote).join(' ')}`;
  return start(SCRIPT, ['-qefc', command, '/dev/null'], { SHELL: '/bin/sh', CI: '', ...env });
}

/** `bmc-conformance load ARGS`, to its end. */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  const run = start(process.execPath, [CLI, 'load', ...args], env);
  run.child.stdin!.end();
  return run.finished;
}

/** Resolves once `check` holds, polling every 100 ms; rejects after `tries` polls. */
export async function until(check: () => boolean | Promise<boolean>, what: string, tries = 300): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}
