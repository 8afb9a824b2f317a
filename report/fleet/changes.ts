/** A fleet compared with an earlier one (`report --merge … --previous DIR`): per target × requirement. */
import type { Verdict } from '../../client/results.js';
import { changesBetween } from '../changes.js';
import type { FleetChange, FleetChanges, FleetMatrix } from './matrix.js';

export function fleetChanges(previous: FleetMatrix, current: FleetMatrix, source: string): FleetChanges {
  const before = new Map(previous.targets.map((t) => [t.name, t]));
  const now = new Set(current.targets.map((t) => t.name));
  const changes: FleetChange[] = [];
  const statusChanges: FleetChanges['statusChanges'] = [];
  for (const t of current.targets) {
    const old = before.get(t.name);
    if (!old) continue;
    if (old.status !== t.status) statusChanges.push({ target: t.name, from: old.status, to: t.status });
    // A target without verdicts once or now has no requirement to compare: its status change says it.
    if (!old.verdicts || !t.verdicts) continue;
    for (const c of changesBetween(asMap(old.verdicts), asMap(t.verdicts))) changes.push({ target: t.name, ...c });
  }
  return {
    source,
    previousStartedAt: previous.startedAt,
    changes,
    added: current.targets.filter((t) => !before.has(t.name)).map((t) => t.name),
    removed: previous.targets.filter((t) => !now.has(t.name)).map((t) => t.name),
    statusChanges,
  };
}

const asMap = (verdicts: Record<string, Verdict>): Map<string, Verdict> => new Map(Object.entries(verdicts));

export const fleetNewlyFailing = (c: FleetChanges): FleetChange[] => c.changes.filter((x) => x.kind === 'regression');
export const fleetNewlyPassing = (c: FleetChanges): FleetChange[] => c.changes.filter((x) => x.kind === 'fix');
export const fleetOtherChanges = (c: FleetChanges): FleetChange[] => c.changes.filter((x) => x.kind === 'change');
