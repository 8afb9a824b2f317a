/**
 * `load`: the flags of a load run and its console; the run itself is runner/load-run.ts. Exit 0
 * when every threshold holds, 1 on a miss, a regression against --baseline, a value that could not
 * be restored or an upload left behind, 2 for a usage or environment problem, 130 or 143 when a
 * Ctrl-C or SIGTERM stopped it (what it had measured is written, marked interrupted).
 */
import { join } from 'node:path';
import { namespaceFlag, type TargetFlags } from './target-flags.js';
import { checkLoadRanges, checkProfileTimeouts, type Ramp } from './load-limits.js';
import { Interruption } from '../runner/signals.js';
import { loadTargetProfile } from '../runner/target-profile.js';
import { resolveNamespace } from '../runner/settings.js';
import { runLoadJob, type LoadOptions } from '../runner/load-run.js';
import type { Command } from 'commander';
import { withUrlCredentials } from '../client/target-url.js';
import type { RatePlan } from '../load/run-load.js';
import { parseDialect } from '../simulator/dialects/dialect.js';
import { UsageError } from '../client/usage-error.js';
import { grouped } from './parse.js';
import { ProgressLine, TABLE_HEAD, capacityStepText, closingLines, scenarioLine } from '../load/terminal.js';

export type { Ramp };

/** The flags of `load` as commander hands them over: the load's options, with the target profile's file. */
export interface LoadFlags extends TargetFlags, Omit<LoadOptions, keyof TargetFlags | 'targetProfile' | 'dialect'> {
  targetProfile?: string;
  dialect?: string;
}

export async function loadCommand(flags: LoadFlags, cmd?: Command): Promise<void> {
  // From here on the first Ctrl-C or SIGTERM stops the load and lets it put back what it wrote.
  const progress = new ProgressLine();
  const print = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  const interruption = new Interruption((line) => {
    progress.clear();
    print(line);
  });
  try {
    if (flags.target !== undefined && flags.target.trim() === '') flags.target = undefined;
    flags = withUrlCredentials(flags);
    checkLoadRanges(flags);
    const targetProfile = flags.targetProfile ? await loadTargetProfile(flags.targetProfile) : undefined;
    if (targetProfile) checkProfileTimeouts(targetProfile.file, targetProfile.timeouts);
    const namespace = resolveNamespace(namespaceFlag(flags, cmd), targetProfile);
    const dialect = flags.dialect === undefined ? undefined : parseDialect(flags.dialect);
    if (flags.dialect !== undefined && !dialect)
      throw new UsageError(`Unknown dialect ${flags.dialect}: spec, phosphor-rest, bmcweb, bmcweb@current or bmcweb@2023.`);
    const outcome = await runLoadJob({ ...flags, dialect, namespace, targetProfile }, interruption, {
      start: (h) =>
        print(
          `bmc-conformance load: ${h.target}${h.embedded ? ' (embedded simulator)' : ''}, ${describePlan(h.plan, h.connections)}, ${h.durationS} s per scenario${h.windowS ? ` in ${h.windowS} s windows` : ''}, at most ${grouped(h.maxRequests)} requests each (--max-requests)\n${TABLE_HEAD}`,
        ),
      progress: (name, p, plannedS) => progress.update(name, p, plannedS),
      capacityStep: (name, step) => progress.capacityStep(name, capacityStepText(step)),
      scenario: (r) => {
        progress.clear();
        print(scenarioLine(r));
      },
      end: () => progress.clear(),
    });
    for (const line of closingLines(outcome.doc)) print(line);
    print(`results: ${outcome.files.json}\nreport:  ${outcome.files.html}`);
    if (outcome.attached > 0)
      print(
        `allure:  ${outcome.attached} load test(s) added to ${join(outcome.files.dir, 'allure-results')} (render with "bmc-conformance report --in ${flags.out}")`,
      );
    process.exitCode = outcome.exitCode;
  } finally {
    interruption.dispose();
  }
}

function describePlan(p: RatePlan, connections: number): string {
  switch (p.kind) {
    case 'closed':
      return `closed loop, ${connections} connections`;
    case 'open':
      return `open loop at ${p.rate} requests/s (${connections} connections)`;
    case 'ramp':
      return `ramp from ${p.from} to ${p.to} requests/s in ${p.steps} steps (${connections} connections)`;
    case 'capacity':
      return `capacity search from ${p.startRate} up to ${p.maxRate} requests/s, ${p.criterion === 'conformant' ? `each step judged by its verification${p.p99BoundMs === undefined ? '' : ` and a p99 bound of ${p.p99BoundMs} ms`}` : `p99 bound ${p.p99BoundMs} ms`} (${connections} connections)`;
  }
}
