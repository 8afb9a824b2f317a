/**
 * A destructive run as a lab user makes it against a target of its own (the simulator started
 * with `simulate`, here in its own process): hardware defaults, no writable named, no profile.
 * Once against the plain simulator and once against the phosphor-rest dialect with its field
 * event latency (events polled, up to 2 s late), each timed from start to exit.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnListening, type SpawnedSimulator } from './spawned-simulator.js';

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));

interface Timed {
  seconds: number;
  exitCode: number;
  summary: string;
}

/** `simulate` in a child process; resolves with its URL once it listens. */
function simulate(args: string[]): Promise<SpawnedSimulator> {
  return spawnListening([CLI, 'simulate', ...args], 'simulate');
}

async function timedRun(url: string): Promise<Timed> {
  const out = await mkdtemp(join(tmpdir(), 'bmc-bench-run-'));
  const started = performance.now();
  try {
    const exitCode = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'run', '--target', url, '--insecure', '--profile', 'destructive', '--out', out], {
        stdio: 'ignore',
      });
      child.once('exit', (code) => resolve(code ?? 1));
    });
    const seconds = (performance.now() - started) / 1000;
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as { summary: Record<string, number> };
    const s = results.summary;
    return { seconds, exitCode, summary: `${s.PASS} PASS, ${s.FAIL} FAIL, ${s.WARN} WARN, ${s.NOT_TESTED} NOT_TESTED` };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

export async function hardwareRuns(): Promise<void> {
  const figures: Array<[string, Timed]> = [];
  for (const [name, args] of [
    ['plain simulator', []],
    ['phosphor-rest dialect', ['--dialect', 'phosphor-rest']],
  ] as const) {
    const sim = await simulate([...args]);
    try {
      figures.push([name, await timedRun(sim.url)]);
    } finally {
      await sim.stop();
    }
  }
  for (const [name, f] of figures) {
    console.log(
      `destructive run at hardware defaults against the ${name}: ${f.seconds.toFixed(1)} s wall (exit ${f.exitCode}; ${f.summary})`,
    );
  }
  const [, plain] = figures[0]!;
  const [, phosphor] = figures[1]!;
  console.log(
    `destructive run, phosphor-rest dialect / plain simulator: ${(phosphor.seconds / plain.seconds).toFixed(2)} (target for the dialect run: <= 90 s)`,
  );
}
