/**
 * `report --merge DIR... --out DIR`: the fleet folders of shards (or earlier merges) joined into one
 * fleet report, compared with an earlier merged fleet (--previous). Reads only each folder's
 * fleet.json; links to the targets' own reports where their folders sit beside it.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { FLEET_OUT } from './command-options.js';
import { UsageError } from '../client/usage-error.js';
import { fleetChanges, fleetNewlyFailing, fleetNewlyPassing } from '../report/fleet/changes.js';
import { acrossSentence, fleetHeadline, requirementAcross } from '../report/fleet/counts.js';
import { FLEET_FILE, FLEET_FORMAT, readFleet, requirementIds, type FleetMatrix, type FleetTarget } from '../report/fleet/matrix.js';
import { writeFleetReport } from '../report/fleet/report.js';
import { printSummaryPdf } from '../report/pdf.js';
import { catalogueVersion } from '../report/tool-info.js';

export interface MergeFlags {
  merge?: string[];
  out?: string;
  previous?: string;
  baseline?: string;
  pdf: boolean;
}

export async function mergeCommand(flags: MergeFlags): Promise<void> {
  const dirs = flags.merge!.map((d) => resolve(d));
  const out = resolve(flags.out ?? FLEET_OUT);
  if (dirs.includes(out)) throw new UsageError('--out names one of the folders merged; give the merged report a folder of its own.');
  const fleets = await Promise.all(dirs.map((d) => readFleet(d)));
  const print = (line: string): void => void process.stdout.write(`${line}\n`);
  for (const w of warnings(fleets)) print(`warn  ${w}`);
  const matrix = merged(fleets, dirs, out);
  const named = flags.previous ?? flags.baseline;
  if (named !== undefined) {
    const prev = resolve(named);
    const prevDir = basename(prev) === FLEET_FILE ? dirname(prev) : prev;
    matrix.changes = fleetChanges(await readFleet(prevDir), matrix, join(prevDir, FLEET_FILE));
  }
  await writeFleetReport(out, matrix, [process.env.BMC_PASSWORD ?? '']);
  print(
    `merged ${dirs.length} fleet folder${dirs.length === 1 ? '' : 's'} (shards ${matrix.shards.map((s) => `${s.index}/${s.count}`).join(', ')}): ${fleetHeadline(matrix)}`,
  );
  for (const id of requirementIds(matrix)) {
    const r = requirementAcross(matrix, id);
    if (r.counts.FAIL > 0) print(`  ${id.padEnd(8)} ${acrossSentence(r)}`);
  }
  if (matrix.changes) {
    const c = matrix.changes;
    print(
      `since the fleet run of ${c.previousStartedAt}: ${fleetNewlyFailing(c).length} newly failing, ${fleetNewlyPassing(c).length} newly passing (target × requirement)`,
    );
    for (const x of fleetNewlyFailing(c)) print(`  ${x.target} ${x.id} ${x.from} -> ${x.to}  (newly failing)`);
  }
  print(`fleet: ${join(out, 'summary.html')}`);
  if (flags.pdf) {
    const pdf = await printSummaryPdf(out);
    if ('written' in pdf) print(`pdf: ${pdf.written}`);
    else process.stderr.write(`${pdf.skipped}\n`);
  }
  // As `report`: only a previous run the user named decides the exit code.
  process.exitCode = matrix.changes && fleetNewlyFailing(matrix.changes).length > 0 ? 1 : 0;
}

function merged(fleets: FleetMatrix[], dirs: string[], out: string): FleetMatrix {
  const from = new Map<string, string>();
  const targets: FleetTarget[] = [];
  fleets.forEach((f, i) => {
    for (const t of f.targets) {
      const other = from.get(t.name);
      if (other !== undefined) throw new UsageError(`Target ${t.name} is in both ${other} and ${dirs[i]}; merge each shard once.`);
      from.set(t.name, dirs[i]!);
      // The target's own folder, seen from the merged report, when it came along with the shard.
      const own = t.dir !== undefined ? join(dirs[i]!, t.dir) : undefined;
      const { dir: _dir, ...rest } = t;
      targets.push({ ...rest, ...(own && existsSync(own) && { dir: relative(out, own).split(sep).join('/') }) });
    }
  });
  const starts = fleets.map((f) => Date.parse(f.startedAt));
  const ends = fleets.map((f) => Date.parse(f.startedAt) + f.durationMs);
  return {
    format: FLEET_FORMAT,
    startedAt: new Date(Math.min(...starts)).toISOString(),
    durationMs: Math.max(...ends) - Math.min(...starts),
    tool: fleets[0]!.tool,
    shards: fleets.flatMap((f) => f.shards).sort((a, b) => a.count - b.count || a.index - b.index),
    targets: targets.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  };
}

/** Shards missing from a split, or shards judged by different catalogues: said, not refused. */
function warnings(fleets: FleetMatrix[]): string[] {
  const out: string[] = [];
  const shards = fleets.flatMap((f) => f.shards);
  for (const count of new Set(shards.map((s) => s.count))) {
    const have = new Set(shards.filter((s) => s.count === count).map((s) => s.index));
    const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !have.has(i));
    if (missing.length > 0)
      out.push(
        `shard${missing.length === 1 ? '' : 's'} ${missing.map((i) => `${i}/${count}`).join(', ')} not among the folders merged: the fleet report lacks their targets`,
      );
  }
  const catalogues = new Set(fleets.map((f) => catalogueVersion(f.tool)));
  if (catalogues.size > 1) out.push(`the folders were judged by different catalogues (${[...catalogues].join('; ')})`);
  return out;
}
