/**
 * A destructive run as a lab user makes it against a target of its own (the simulator started
 * with `simulate`, here in its own process), each timed from start to exit: once against the plain
 * simulator at hardware defaults (no writable named, no profile), once against the phosphor-rest
 * dialect at its field pace (events polled up to 2 s late, the server's time per request, one
 * request at a time) with the server's shipped profile, as the measured server was run; that run's
 * areas are set beside the measured server's.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../client/package-root.js';
import { spawnListening, type SpawnedSimulator } from './spawned-simulator.js';
import type { TreeReads } from '../client/tree-reads.js';

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));

/**
 * A destructive run against phosphor-rest-server on a BMC, with its shipped profile (seconds per
 * area, the range over the runs measured; 162-168 s in all).
 */
export const MEASURED_PHOSPHOR_REST: ReadonlyArray<{ area: string; areas: readonly string[]; seconds: readonly [number, number] }> = [
  { area: 'upload', areas: ['upload'], seconds: [35, 35] },
  { area: 'fuzz', areas: ['fuzz'], seconds: [34, 37] },
  { area: 'stateful', areas: ['stateful'], seconds: [28, 41] },
  { area: 'events', areas: ['events'], seconds: [23, 31] },
  { area: 'writes', areas: ['writes'], seconds: [8, 11] },
  { area: 'listings', areas: ['listings'], seconds: [3, 6] },
  { area: 'the rest', areas: ['auth', 'envelope', 'objects', 'delete', 'actions', 'errors'], seconds: [25, 25] },
];
const MEASURED_TOTAL: readonly [number, number] = [162, 168];

interface Timed {
  seconds: number;
  exitCode: number;
  summary: string;
  /** Seconds per area, from the run's "area NAME: N tests in S s" lines. */
  areas: Map<string, number>;
  /** results.json's whole-tree reads (absent from a run that wrote none). */
  treeReads?: TreeReads;
}

/** `simulate` in a child process; resolves with its URL once it listens. */
function simulate(args: string[]): Promise<SpawnedSimulator> {
  return spawnListening([CLI, 'simulate', ...args], 'simulate');
}

/** A destructive run against `url`, or against the embedded simulator when `url` is undefined. */
async function timedRun(url: string | undefined, extra: string[]): Promise<Timed> {
  const out = await mkdtemp(join(tmpdir(), 'bmc-bench-run-'));
  const started = performance.now();
  try {
    let stdout = '';
    const exitCode = await new Promise<number>((resolve) => {
      const target = url === undefined ? [] : ['--target', url, '--insecure'];
      const args = [CLI, 'run', ...target, '--profile', 'destructive', '--out', out, ...extra];
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.once('close', (code) => resolve(code ?? 1));
    });
    const seconds = (performance.now() - started) / 1000;
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as {
      summary: Record<string, number>;
      treeReads?: TreeReads;
    };
    const s = results.summary;
    const areas = new Map<string, number>();
    for (const m of stdout.matchAll(/^area (\S+): \d+ tests in ([\d.]+) s/gm)) areas.set(m[1]!, (areas.get(m[1]!) ?? 0) + Number(m[2]));
    return {
      seconds,
      exitCode,
      areas,
      summary: `${s.PASS} PASS, ${s.FAIL} FAIL, ${s.WARN} WARN, ${s.NOT_TESTED} NOT_TESTED`,
      treeReads: results.treeReads,
    };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

const range = ([lo, hi]: readonly [number, number]): string => (lo === hi ? `${lo}` : `${lo}-${hi}`);

/**
 * How far `seconds` lies outside the measured range, as a share of its nearer end: 0 inside it.
 * The dialect must come within 20 % of the measured figures, which are ranges.
 */
export function offRange(seconds: number, [lo, hi]: readonly [number, number]): number {
  if (seconds < lo) return (seconds - lo) / lo;
  if (seconds > hi) return (seconds - hi) / hi;
  return 0;
}

const percent = (share: number): string => (share === 0 ? 'in range' : `${share > 0 ? '+' : ''}${Math.round(share * 100)} %`);

/**
 * The dialect run's areas beside the measured server's: seconds, the dialect's over the measured
 * midpoint, and how far outside the measured range it lies.
 */
export function areaTable(run: Timed): string[] {
  const rows = [
    ...MEASURED_PHOSPHOR_REST.map(({ area, areas, seconds }) => ({
      area,
      dialect: areas.reduce((sum, a) => sum + (run.areas.get(a) ?? 0), 0),
      measured: seconds,
    })),
    { area: 'whole run', dialect: run.seconds, measured: MEASURED_TOTAL },
  ];
  const lines = ['  area        dialect s   measured s   dialect/midpoint   off the range'];
  for (const r of rows) {
    const ratio = r.dialect / ((r.measured[0] + r.measured[1]) / 2);
    lines.push(
      `  ${r.area.padEnd(10)} ${r.dialect.toFixed(1).padStart(9)} ${range(r.measured).padStart(12)} ${ratio.toFixed(2).padStart(18)} ${percent(offRange(r.dialect, r.measured)).padStart(15)}`,
    );
  }
  return lines;
}

/** The whole-tree reads of a run, and its enumerates of subtrees: `72 in 142.6 s; subtree 54 in 162.8 s`. */
function readsText(t: TreeReads | undefined): string {
  if (!t) return 'not recorded';
  return `${t.count} in ${t.seconds} s; subtree ${t.subtree.count} in ${t.subtree.seconds} s`;
}

/** One line per run, side by side: wall time, exit, verdicts, whole-tree reads. */
export function sideBySide(rows: ReadonlyArray<[string, Timed]>): string[] {
  const width = Math.max(...rows.map(([name]) => name.length));
  return [
    `  ${'run'.padEnd(width)}  wall s  exit  verdicts; whole-tree reads; subtree enumerates`,
    ...rows.map(
      ([name, r]) =>
        `  ${name.padEnd(width)} ${r.seconds.toFixed(1).padStart(7)} ${String(r.exitCode).padStart(5)}  ${r.summary}; ${readsText(r.treeReads)}`,
    ),
  ];
}

/** What a real BMC's whole-tree enumerate costs (seconds), modelled with `--route-latency`. */
const SLOW_ENUMERATE = 'enumerate=3000';

export async function hardwareRuns(): Promise<void> {
  // The main job (`npm start` without its HTML): the embedded simulator, in-process, its own pacing.
  const embedded = await timedRun(undefined, []);
  console.log(
    `run against the embedded simulator (npm start's job): ${embedded.seconds.toFixed(1)} s wall (exit ${embedded.exitCode}; ${embedded.summary}); areas: ${[...embedded.areas].map(([a, s]) => `${a} ${s.toFixed(1)}`).join(', ')}`,
  );
  // The same with a whole-tree enumerate as slow as a real BMC's, the rest at the simulator's pace.
  const slowTree = await timedRun(undefined, ['--route-latency', SLOW_ENUMERATE]);
  const profile = join(packageRoot(), 'profiles/phosphor-rest-server.json');
  const figures: Array<[string, Timed]> = [];
  for (const [name, simArgs, runArgs] of [
    ['plain simulator', [], []],
    ['phosphor-rest dialect', ['--dialect', 'phosphor-rest', '--namespace', 'openbmc_project'], ['--target-profile', profile]],
  ] as const) {
    const sim = await simulate([...simArgs]);
    try {
      figures.push([name, await timedRun(sim.url, [...runArgs])]);
    } finally {
      await sim.stop();
    }
  }
  const [, plain] = figures[0]!;
  const [, phosphor] = figures[1]!;
  console.log(
    `destructive run at hardware defaults against the plain simulator: ${plain.seconds.toFixed(1)} s wall (exit ${plain.exitCode}; ${plain.summary})`,
  );
  console.log(
    `destructive run with its profile against the phosphor-rest dialect: ${phosphor.seconds.toFixed(1)} s wall (exit ${phosphor.exitCode}; ${phosphor.summary}); its areas beside the measured server's:`,
  );
  for (const line of areaTable(phosphor)) console.log(line);
  console.log('side by side, what the whole-tree reads cost:');
  const rows: Array<[string, Timed]> = [
    ['embedded simulator', embedded],
    [`embedded simulator, --route-latency ${SLOW_ENUMERATE}`, slowTree],
    ['phosphor-rest dialect at field pace', phosphor],
  ];
  for (const line of sideBySide(rows)) console.log(line);
}
