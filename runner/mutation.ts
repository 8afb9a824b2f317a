/**
 * Mutation self-test of the suites: for each simulator fault, the product's own `run` command
 * (a child process, as a user would call it) against the embedded simulator with that fault must
 * give FAIL for the requirement the fault breaks. The clean simulator must give no FAIL and no WARN.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failableRequirements, requirement } from '../catalogue/requirements.js';
import { FAULTS } from '../simulator/faults.js';
import { packageRoot } from './package-root.js';
import type { Results, Verdict } from './results.js';

export interface FaultOutcome {
  fault: string;
  requirement: string;
  verdict: Verdict | 'ERROR';
  killed: boolean;
  reason?: string;
  seconds: number;
}

export interface MutationReport {
  outcomes: FaultOutcome[];
  /** MUST and SAFETY requirements no fault breaks. */
  uncovered: string[];
  clean: { fails: string[]; warns: string[]; exitCode: number; seconds: number };
  score: number;
  seconds: number;
}

interface CliRun {
  exitCode: number;
  results?: Results;
  stderr: string;
  seconds: number;
}

/** One `bmc-conformance run` in a child process, with its results.json read back. */
async function cliRun(args: string[]): Promise<CliRun> {
  const out = await mkdtemp(join(tmpdir(), 'bmc-mutation-'));
  const started = Date.now();
  try {
    const cli = join(packageRoot(), 'dist', 'cli', 'main.js');
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [cli, 'run', '--out', out, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('error', reject);
      child.on('close', (c) => resolve({ code: c ?? 1, stderr: err }));
    });
    let results: Results | undefined;
    try {
      results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as Results;
    } catch {
      results = undefined;
    }
    return { exitCode: code, results, stderr, seconds: (Date.now() - started) / 1000 };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

export async function runFault(fault: string, requirementId: string): Promise<FaultOutcome> {
  const area = requirement(requirementId).area;
  const run = await cliRun(['--fault', fault, '--only', area, '--requirements', requirementId]);
  const r = run.results?.requirements.find((x) => x.id === requirementId);
  const verdict: Verdict | 'ERROR' = r?.verdict ?? 'ERROR';
  return {
    fault,
    requirement: requirementId,
    verdict,
    killed: verdict === 'FAIL',
    reason: r?.reason ?? (run.stderr.trim().split('\n')[0] || `exit code ${run.exitCode}`),
    seconds: run.seconds,
  };
}

/** Runs tasks with at most `limit` at once. */
async function pool<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]!);
    }
  });
  await Promise.all(workers);
  return results;
}

export async function runMutation(opts: { concurrency?: number; faults?: string[]; onOutcome?: (o: FaultOutcome) => void } = {}): Promise<MutationReport> {
  const started = Date.now();
  const chosen = FAULTS.filter((f) => !opts.faults || opts.faults.includes(f.name));
  const cleanRun = cliRun([]);
  const outcomes = await pool(chosen, opts.concurrency ?? 3, async (f) => {
    const o = await runFault(f.name, f.requirement);
    opts.onOutcome?.(o);
    return o;
  });
  const clean = await cleanRun;
  const covered = new Set(FAULTS.map((f) => f.requirement));
  const uncovered = failableRequirements().map((r) => r.id).filter((id) => !covered.has(id));
  const reqs = clean.results?.requirements ?? [];
  return {
    outcomes,
    uncovered,
    clean: {
      fails: reqs.filter((r) => r.verdict === 'FAIL').map((r) => `${r.id}: ${r.reason ?? ''}`),
      warns: reqs.filter((r) => r.verdict === 'WARN').map((r) => `${r.id}: ${r.reason ?? ''}`),
      exitCode: clean.exitCode,
      seconds: clean.seconds,
    },
    score: outcomes.length === 0 ? 0 : outcomes.filter((o) => o.killed).length / outcomes.length,
    seconds: (Date.now() - started) / 1000,
  };
}

export function formatMutationReport(report: MutationReport): string {
  const lines = [
    '| fault | requirement | verdict | result |',
    '|---|---|---|---|',
    ...report.outcomes.map((o) => `| ${o.fault} | ${o.requirement} | ${o.verdict} | ${o.killed ? 'killed' : `**survived** (${o.reason ?? ''})`} |`),
    '',
    `score: ${(report.score * 100).toFixed(1)} % (${report.outcomes.filter((o) => o.killed).length} of ${report.outcomes.length} faults killed)`,
    `MUST/SAFETY requirements without a fault: ${report.uncovered.length === 0 ? 'none' : report.uncovered.join(', ')}`,
    `clean simulator: exit ${report.clean.exitCode}, ${report.clean.fails.length} FAIL, ${report.clean.warns.length} WARN (${report.clean.seconds.toFixed(1)} s)`,
    `wall time: ${report.seconds.toFixed(1)} s`,
  ];
  return lines.join('\n');
}
