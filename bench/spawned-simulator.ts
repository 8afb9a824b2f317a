/** Starts bench/simulator-process.js as a child and hands back its URL and a way to stop it. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface SpawnedSimulator {
  url: string;
  stop(): Promise<void>;
}

export function spawnSimulator(faults: string[] = []): Promise<SpawnedSimulator> {
  return spawnListening([fileURLToPath(new URL('./simulator-process.js', import.meta.url)), ...faults], 'The simulator process');
}

/** A Node child that prints "listening <url>" once it serves: `what` names it in the error if it never does. */
export function spawnListening(args: string[], what: string): Promise<SpawnedSimulator> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /^listening (\S+)/m.exec(buf);
      if (m) resolve({ url: m[1]!, stop });
    });
    child.once('exit', (code) => reject(new Error(`${what} exited with code ${code} before listening.`)));
  });
}
