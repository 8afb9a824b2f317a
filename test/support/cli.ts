/** The CLI from dist/, as a child process with the environment given (fleets spawn it themselves). */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../client/package-root.js';
import { timeFactor } from './hang.js';

export const CLI = join(packageRoot(), 'dist', 'cli', 'main.js');

/**
 * This process's environment for a child, less NODE_TLS_REJECT_UNAUTHORIZED: a shell that exports
 * it (common beside BMCs with self-signed certificates) would have node warn on the stderr of a
 * child that connects, and the tests compare that stderr. (The CLI drops it too, cli/main.ts; a
 * test of that sets it again.)
 */
export function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_TLS_REJECT_UNAUTHORIZED;
  return env;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  pid: number;
}

/**
 * `group`: the CLI leads a process group of its own, as a shell's foreground job does, so that a
 * test can send a signal to the whole group (`process.kill(-pid, …)`) as a terminal's Ctrl-C does.
 */
export function cli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 90_000,
  onStart?: (pid: number) => void,
  group = false,
): Promise<Ran> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      detached: group,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...childEnv(), BMC_URL: '', BMC_PASSWORD: '', GITHUB_STEP_SUMMARY: '', ...env },
    });
    onStart?.(child.pid!);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs * timeFactor());
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started, pid: child.pid! });
    });
  });
}
