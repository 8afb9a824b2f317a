/**
 * Command-line face of the simulator (wired into `bmc-conformance simulate`): the first stdout
 * line is `listening <url>`, and SIGTERM/SIGINT close it and exit 0.
 */
import { FAULTS } from './faults.js';
import { startSimulator, type SimulatorOptions } from './server.js';

export async function runSimulatorCli(opts: SimulatorOptions = {}): Promise<void> {
  const sim = await startSimulator(opts);
  process.stdout.write(`listening ${sim.url}\n`);
  // Resolves once a signal has closed the simulator; the caller then exits 0.
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      const force = setTimeout(() => process.exit(0), 3000);
      force.unref();
      void sim.close().finally(resolve);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

/** A printable table of the faults: name, requirement, description. */
export function listFaultsText(): string {
  const nameWidth = Math.max(5, ...FAULTS.map((f) => f.name.length));
  const reqWidth = Math.max(11, ...FAULTS.map((f) => f.requirement.length));
  const row = (a: string, b: string, c: string): string => `${a.padEnd(nameWidth)}  ${b.padEnd(reqWidth)}  ${c}`;
  return [row('FAULT', 'REQUIREMENT', 'DESCRIPTION'), ...FAULTS.map((f) => row(f.name, f.requirement, f.description))].join('\n');
}
