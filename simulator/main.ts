/**
 * Command-line face of the simulator (wired into `bmc-conformance simulate`): the first stdout
 * line is `listening <url>`, and SIGTERM/SIGINT close it and exit 0.
 */
import { LATENCY_FAULTS } from './latency-faults.js';
import { HARNESS_FAULTS } from './harness-faults.js';
import { FAULTS } from './faults.js';
import { startSimulator, type SimulatorOptions } from './server.js';

export async function runSimulatorCli(opts: SimulatorOptions = {}): Promise<void> {
  // Handlers go in before the "listening" line: whoever reads it may signal at once.
  let signalled: () => void = () => {};
  const signal = new Promise<void>((resolve) => (signalled = resolve));
  const onSignal = (): void => signalled();
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    const sim = await startSimulator(opts);
    process.stdout.write(`listening ${sim.url}\n`);
    await signal;
    const force = setTimeout(() => process.exit(0), 3000);
    force.unref();
    await sim.close();
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

/** A printable table of the faults: name, requirement, description. */
export function listFaultsText(): string {
  const nameWidth = Math.max(5, ...FAULTS.map((f) => f.name.length));
  const reqWidth = Math.max(11, ...FAULTS.map((f) => f.requirement.length));
  const opWidth = Math.max(8, ...FAULTS.map((f) => f.operator.length));
  const row = (a: string, b: string, op: string, c: string): string =>
    `${a.padEnd(nameWidth)}  ${b.padEnd(reqWidth)}  ${op.padEnd(opWidth)}  ${c}`;
  return [
    row('FAULT', 'REQUIREMENT', 'OPERATOR', 'DESCRIPTION'),
    ...FAULTS.map((f) => row(f.name, f.requirement, f.operator, f.description)),
    // A slow BMC breaks no statement of the spec: these exist for load thresholds and baselines.
    ...LATENCY_FAULTS.map((f) => row(f.name, '(load)', '', f.description)),
    ...HARNESS_FAULTS.map((f) => row(f.name, '(run)', '', f.description)),
  ].join('\n');
}
