/**
 * fleet.json: the machine-readable target × requirement matrix of a fleet folder (a fleet run, one
 * shard of it, or a merge of shards). Merges and diffs read it, never the targets' own folders,
 * so a merged report needs only the shards' fleet.json files.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REQUIREMENTS } from '../../catalogue/requirements.js';
import { brief } from '../../client/headline.js';
import type { Results, Verdict } from '../../client/results.js';
import { UsageError } from '../../client/usage-error.js';
import type { VerdictChange } from '../changes.js';
import type { ToolInfo } from '../tool-info.js';
import { partlyText } from '../partly.js';

export const FLEET_FILE = 'fleet.json';
export const FLEET_FORMAT = 'bmc-conformance-fleet/1';
/** Reasons are kept short: the target's own folder holds them whole, with evidence. */
const REASON_LIMIT = 300;

/**
 * passed/failed: the run gave verdicts and exited 0/1; unreachable: the run could not start (exit 2:
 * unreachable, TLS, a usage error; login refused when the target refused the credentials); error: it was not started or ended without a
 * verdict; interrupted: the fleet was stopped by a signal before it ended.
 */
export type TargetStatus = 'passed' | 'failed' | 'not judged' | 'unreachable' | 'login refused' | 'error' | 'interrupted';

export interface FleetTarget {
  name: string;
  platform?: string;
  url: string;
  status: TargetStatus;
  exitCode: number | null;
  durationMs: number;
  /** Why a target has no verdicts: the run's own sentence. */
  message?: string;
  /** The target's run folder, relative to the folder of this fleet.json, when it is there. */
  dir?: string;
  startedAt?: string;
  summary?: Record<Verdict, number>;
  /** Requirement ID → verdict, for a run that gave verdicts. */
  verdicts?: Record<string, Verdict>;
  /** Requirement ID → reason, for the verdicts other than PASS and NOT_TESTED. */
  reasons?: Record<string, string>;
  /** Requirement ID → the tests that did not judge it, for a PASS or WARN that rests on the others (partly judged). */
  partly?: Record<string, string>;
  /** What the run left behind on the target (leave no trace). */
  trace?: 'PASS' | 'WARN' | 'FAIL';
}

export interface FleetChange extends VerdictChange {
  target: string;
}

export interface FleetChanges {
  /** The earlier fleet folder compared with, and when it ran. */
  source: string;
  previousStartedAt: string;
  /** Per target × requirement, for targets with verdicts both times. */
  changes: FleetChange[];
  added: string[];
  removed: string[];
  statusChanges: Array<{ target: string; from: TargetStatus; to: TargetStatus }>;
}

export interface FleetMatrix {
  format: typeof FLEET_FORMAT;
  startedAt: string;
  durationMs: number;
  tool: ToolInfo;
  /** Which parts of the fleet this holds: [{1, 1}] for a whole fleet, one entry per shard merged. */
  shards: Array<{ index: number; count: number }>;
  targets: FleetTarget[];
  changes?: FleetChanges;
}

/** A target's row from its run's results.json. */
export function verdictsOf(results: Results): Pick<FleetTarget, 'startedAt' | 'summary' | 'verdicts' | 'reasons' | 'partly' | 'trace'> {
  const verdicts: Record<string, Verdict> = {};
  const reasons: Record<string, string> = {};
  const partly: Record<string, string> = {};
  for (const r of results.requirements) {
    verdicts[r.id] = r.verdict;
    if (r.verdict !== 'PASS' && r.verdict !== 'NOT_TESTED' && r.reason) reasons[r.id] = brief(r.reason, REASON_LIMIT);
    if (r.partly) partly[r.id] = brief(partlyText(r), REASON_LIMIT);
  }
  return {
    startedAt: results.startedAt,
    summary: results.summary,
    verdicts,
    reasons,
    ...(Object.keys(partly).length > 0 && { partly }),
    ...(results.trace && { trace: results.trace.verdict }),
  };
}

/** The requirement IDs of a matrix, in catalogue order; IDs an older catalogue had come last. */
export function requirementIds(matrix: Pick<FleetMatrix, 'targets'>): string[] {
  const known = REQUIREMENTS.map((r) => r.id);
  const seen = new Set(matrix.targets.flatMap((t) => Object.keys(t.verdicts ?? {})));
  return [...known.filter((id) => seen.has(id) || seen.size === 0), ...[...seen].filter((id) => !known.includes(id)).sort()];
}

export async function readFleet(dir: string): Promise<FleetMatrix> {
  const file = join(dir, FLEET_FILE);
  let doc: Partial<FleetMatrix>;
  try {
    doc = JSON.parse(await readFile(file, 'utf8')) as Partial<FleetMatrix>;
  } catch (err) {
    throw new UsageError(
      err instanceof SyntaxError
        ? `${file} is not a fleet.json file.`
        : `There is no fleet.json in ${dir}; give the folder of a fleet run (run --targets) or of a merge.`,
    );
  }
  if (doc.format !== FLEET_FORMAT || !Array.isArray(doc.targets) || !Array.isArray(doc.shards))
    throw new UsageError(`${file} is not a fleet.json file.`);
  return doc as FleetMatrix;
}
