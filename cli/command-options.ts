/**
 * The option sets and defaults program.ts declares for commands whose code loads only when they
 * run (fleets, merges, reports): --help, --version and usage errors need these, not the reports'
 * modules.
 */
import { Option, type Command } from 'commander';
import * as parse from './parse.js';

/** The default of --in: a --verify that leaves it reads the files beside the attestation. */
export const DEFAULT_IN = 'reports/latest';
/** Where a fleet's report goes, and a merge's, unless --out says. */
export const FLEET_OUT = 'reports/fleet';
/** How many targets of a fleet run at once, unless --fleet-concurrency says. */
export const FLEET_CONCURRENCY = 4;

export function fleetOptions(cmd: Command): Command {
  return cmd
    .option(
      '--targets <file>',
      `run a fleet: every target of FILE (schemas/targets.schema.json) as its own run into --out DIR/<name>/ (default DIR ${FLEET_OUT}); passwords come from the environment variables the file names`,
    )
    .option('--fleet-concurrency <n>', `with --targets: how many targets run at once (default ${FLEET_CONCURRENCY})`, parse.positiveInt)
    .addOption(
      new Option('--shard <i/n>', 'with --targets: only the i-th of n parts of the list, the same part on every machine (a CI matrix)'),
    )
    .addHelpText(
      'after',
      `
Fleets:
  run --targets lab.json --shard 2/4 --only auth,objects --out fleet-2
    runs the second quarter of the targets of lab.json, each a run of its own with the other
    flags given, into fleet-2/<name>/, and writes fleet-2/fleet.json, summary.html, summary.md
    and junit.xml; passwords come from the environment variables lab.json names.
  report --merge fleet-1 fleet-2 fleet-3 fleet-4 --out fleet [--previous last-fleet]
    joins the shards into one fleet report.
  A fleet exits 0 when every target passed, 1 when a target FAILed, 2 when a target could not
  be run to a verdict.`,
    );
}

export function mergeOptions(cmd: Command): Command {
  return cmd
    .option(
      '--merge <dirs...>',
      'join fleet folders (the shards of run --targets, or earlier merges) into one fleet report in --out; with --previous DIR, an earlier merged fleet, the changes per target and requirement',
    )
    .option('--out <dir>', `with --merge: where the fleet report goes (default ${FLEET_OUT})`);
}
