/**
 * Command-line face of the simulator (wired into `bmc-conformance simulate`): the first stdout
 * line is `listening <url>`; SIGINT or SIGTERM closes it and exits 130 or 143, as every command does,
 * and a second signal exits at once.
 */
import { LATENCY_FAULTS } from './latency-faults.js';
import { HARNESS_FAULTS } from './harness-faults.js';
import { LOAD_FAULTS } from './load-faults.js';
import { FAULTS } from './faults.js';
import { ANSWER_FAULTS, allSiteFaults, siteFaultName } from './answer-faults.js';
import { FILTER_SHAPES } from '../client/event-site.js';
import { EVENT_SITE_FAULTS, eventSiteFaultName, reachedEventSiteFaults } from './event-site-faults.js';
import { startSimulator, type SimulatorOptions } from './server.js';

/** Resolves with the exit code the signal that stopped it asks for (130 or 143). */
export async function runSimulatorCli(opts: SimulatorOptions = {}): Promise<number> {
  // Handlers go in before the "listening" line: whoever reads it may signal at once.
  let signalled: (code: number) => void = () => {};
  const signal = new Promise<number>((resolve) => (signalled = resolve));
  let received = 0;
  const onSignal = (name: NodeJS.Signals): void => {
    const code = name === 'SIGINT' ? 130 : 143;
    if (++received > 1) process.exit(code);
    signalled(code);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    const sim = await startSimulator(opts);
    process.stdout.write(`listening ${sim.url}\n`);
    const code = await signal;
    const force = setTimeout(() => process.exit(code), 3000);
    force.unref();
    await sim.close();
    return code;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

/** A printable table of the faults: name, requirement, description. */
export function listFaultsText(): string {
  const nameWidth = Math.max(5, ...[...FAULTS, ...LOAD_FAULTS].map((f) => f.name.length), ...ANSWER_FAULTS.map((f) => f.name.length + 5));
  const reqWidth = Math.max(11, ...FAULTS.map((f) => f.requirement.length), ...LOAD_FAULTS.map((f) => f.requirement.length + 16));
  const opWidth = Math.max(8, ...FAULTS.map((f) => f.operator.length));
  const row = (a: string, b: string, op: string, c: string): string =>
    `${a.padEnd(nameWidth)}  ${b.padEnd(reqWidth)}  ${op.padEnd(opWidth)}  ${c}`;
  return [
    row('FAULT', 'REQUIREMENT', 'OPERATOR', 'DESCRIPTION'),
    ...FAULTS.map((f) => row(f.name, f.requirement, f.operator, f.description)),
    // A slow BMC breaks no statement of the spec: these exist for load thresholds and baselines.
    // Shown only under concurrency: judged by `load --verify`, not by a conformance run.
    ...LOAD_FAULTS.map((f) => row(f.name, `${f.requirement} (load --verify)`, f.operator, f.description)),
    ...LATENCY_FAULTS.map((f) => row(f.name, '(load)', '', f.description)),
    ...HARNESS_FAULTS.map((f) => row(f.name, '(run)', '', f.description)),
    // Answer faults apply at one site each: NAME@ROUTE:OUTCOME (--list-faults --sites lists every pair).
    ...ANSWER_FAULTS.map((f) => row(`${f.name}@SITE`, f.requirement, f.operator, `${f.description} (at one route and outcome)`)),
    // Event faults apply at one site each: NAME@CAUSE:SHAPE; a dropped event names the filter's requirement.
    ...EVENT_SITE_FAULTS.map((f) =>
      row(
        `${f.name}@SITE`,
        [...new Set(FILTER_SHAPES.map((s) => f.requirement(s)))].join('/'),
        f.operator,
        `${f.description} (at one cause of change and filter shape)`,
      ),
    ),
  ].join('\n');
}

/**
 * Every answer fault at every site it applies to (`FAULT@ROUTE:OUTCOME`), then every event fault at
 * every site it applies to (`FAULT@CAUSE:SHAPE`), one a line: the pairs the mutation self-test runs.
 */
export function siteFaultsText(): string {
  return [...allSiteFaults().map(siteFaultName), ...reachedEventSiteFaults().map(eventSiteFaultName)].join('\n');
}
