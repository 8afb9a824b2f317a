/**
 * `run --targets FILE`: a fleet. Each target is a `run` child of this CLI (runner/fleet/fleet.ts says
 * why) with the fleet's other flags as given, into --out DIR/<name>/; the fleet folder gets
 * fleet.json, summary.html, summary.md and junit.xml. Exit 0 when every target passed, 1 when a
 * target FAILed, 2 when a target could not be run to a verdict.
 */
import { resolve, join } from 'node:path';
import type { Command } from 'commander';
import { FLEET_CONCURRENCY, FLEET_OUT } from './command-options.js';
import type { RunFlags } from './run-flags.js';
import { runChildren, type ChildJob } from '../runner/fleet/fleet.js';
import { notRun, targetOutcome } from '../runner/fleet/outcome.js';
import { loadTargets, type FleetEntry } from '../runner/fleet/targets-file.js';
import { parseShard, shardOf, type Shard } from '../runner/fleet/shard.js';
import { packageRoot } from '../client/package-root.js';
import { UsageError } from '../client/usage-error.js';
import { fleetExitCode, fleetHeadline } from '../report/fleet/counts.js';
import { FLEET_FORMAT, type FleetMatrix, type FleetTarget } from '../report/fleet/matrix.js';
import { writeFleetReport } from '../report/fleet/report.js';
import { toolInfo } from '../report/tool-info.js';
import { finishLine, fleetTable, startLine } from './fleet-progress.js';

export interface FleetFlags {
  targets?: string;
  fleetConcurrency?: number;
  shard?: string;
}

/** The fleet's own options: consumed here, not passed to the targets' runs. */
const FLEET_ONLY = ['--targets', '--fleet-concurrency', '--shard', '--out'];
/** Per target (from the targets file) or embedded-simulator only: refused beside --targets. */
const PER_TARGET: Array<[keyof RunFlags, string]> = [
  ['target', '--target'],
  ['user', '--user'],
  ['password', '--password'],
  ['targetProfile', '--target-profile'],
  ['expectations', '--expectations'],
  ['updateExpectations', '--update-expectations'],
  ['fault', '--fault'],
  ['dialect', '--dialect'],
  ['eventLatency', '--event-latency'],
  ['uploadFailDelay', '--upload-fail-delay'],
  ['requestTime', '--request-time'],
  ['routeLatency', '--route-latency'],
];

/** True for a fleet run; the fleet's flags without --targets are a usage error. */
export function fleetRequested(flags: FleetFlags): boolean {
  if (flags.targets !== undefined) return true;
  if (flags.shard !== undefined || flags.fleetConcurrency !== undefined)
    throw new UsageError('--shard and --fleet-concurrency go with --targets FILE.');
  return false;
}

export async function fleetCommand(flags: RunFlags & FleetFlags, cmd?: Command, argv: readonly string[] = process.argv): Promise<void> {
  for (const [key, flag] of PER_TARGET) {
    if (cmd?.getOptionValueSource(key) === 'cli')
      throw new UsageError(`${flag} does not go with --targets: each target's entry in the targets file says it.`);
  }
  const concurrency = flags.fleetConcurrency ?? FLEET_CONCURRENCY;
  if (concurrency < 1) throw new UsageError('--fleet-concurrency takes a whole number of at least 1.');
  const shard: Shard = flags.shard !== undefined ? parseShard(flags.shard) : { index: 1, count: 1 };
  const file = flags.targets!;
  const all = await loadTargets(file);
  const entries = shardOf(all, shard);
  const out = resolve(cmd?.getOptionValueSource('out') === 'cli' ? flags.out : FLEET_OUT);
  const forwarded = forwardedArgs(argv);
  const startedAt = new Date();
  const print = (line: string): void => void process.stdout.write(`${line}\n`);
  const secrets = all.map((e) => process.env[e.passwordEnv] ?? '').filter((s) => s !== '');
  print(
    `bmc-conformance fleet: ${entries.length} of the ${all.length} targets of ${file}${shard.count > 1 ? ` (shard ${shard.index}/${shard.count})` : ''}, at most ${concurrency} at once, into ${out}`,
  );

  const targets = new Map<string, FleetTarget>();
  const jobs: Array<ChildJob & { entry: FleetEntry }> = [];
  for (const entry of entries) {
    const password = process.env[entry.passwordEnv];
    if (password === undefined || password === '')
      targets.set(entry.name, notRun(entry, `the environment variable ${entry.passwordEnv} that holds its password is not set`));
    else jobs.push({ name: entry.name, entry, args: childArgs(entry, forwarded, out), env: childEnv(entry, all, password) });
  }
  let started = 0;
  let done = 0;
  const finished = (t: FleetTarget): void => {
    targets.set(t.name, t);
    print(finishLine(t, ++done, entries.length));
  };
  for (const t of targets.values()) finished(t);
  const { interruptedBy } = await runChildren(jobs, {
    cli: join(packageRoot(), 'dist', 'cli', 'main.js'),
    concurrency,
    onStart: (job) => print(startLine(job.name, job.entry.url, ++started, entries.length)),
    onFinish: async (result) => finished(await targetOutcome(jobs.find((j) => j.name === result.name)!.entry, result, out, secrets)),
  });
  if (interruptedBy) print(`interrupted (${interruptedBy}): the runs under way were passed the signal, the others not started`);

  const matrix: FleetMatrix = {
    format: FLEET_FORMAT,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    tool: toolInfo(),
    shards: [shard],
    // In the shard's order (sorted by name): the same order on every machine.
    targets: entries.map((e) => targets.get(e.name)!),
  };
  await writeFleetReport(out, matrix, secrets);
  for (const line of ['', ...fleetTable(matrix.targets), '', `${fleetHeadline(matrix)}`, `fleet: ${join(out, 'summary.html')}`])
    print(line);
  process.exitCode = fleetExitCode(matrix);
}

/** The words after `run`, less the fleet's own options: each target's run gets them as given. */
export function forwardedArgs(argv: readonly string[]): string[] {
  const at = argv.indexOf('run', 2);
  const words = at < 0 ? [] : argv.slice(at + 1);
  const kept: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const name = word.split('=')[0]!;
    if (FLEET_ONLY.includes(name)) {
      if (!word.includes('=')) i += 1;
      continue;
    }
    kept.push(word);
  }
  return kept;
}

function childArgs(entry: FleetEntry, forwarded: readonly string[], out: string): string[] {
  return [
    'run',
    ...forwarded,
    '--target',
    entry.url,
    '--target-profile',
    entry.targetProfile,
    '--out',
    join(out, entry.name),
    ...(entry.insecure ? ['--insecure'] : []),
    ...(entry.namespace ? ['--namespace', entry.namespace] : []),
  ];
}

/**
 * The password in BMC_PASSWORD (argv is visible to every user of the machine); no other target's
 * password variable; no job summary of its own (the fleet writes one).
 */
function childEnv(entry: FleetEntry, all: readonly FleetEntry[], password: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const e of all) delete env[e.passwordEnv];
  delete env.BMC_URL;
  delete env.GITHUB_STEP_SUMMARY;
  return { ...env, BMC_USER: entry.user, BMC_PASSWORD: password };
}
