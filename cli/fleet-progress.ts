/**
 * What a fleet prints: a line per target as it starts and as it ends (its status says what its exit
 * code means), and a table of all at the end. The runs' own output goes to their run.log only.
 */
import { markdownTable } from 'markdown-table';
import { VERDICTS } from '../client/results.js';
import { statusText } from '../report/fleet/counts.js';
import type { FleetTarget } from '../report/fleet/matrix.js';
import { displayTarget } from '../report/target.js';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const exit = (t: FleetTarget): string => (t.exitCode === null ? 'no exit code' : `exit ${t.exitCode}`);

/** "[started 2/7] bmcweb-2  https://10.0.0.5" */
export function startLine(name: string, url: string, started: number, total: number): string {
  return `[started ${started}/${total}] ${name}  ${displayTarget(url)}`;
}

/** "[3/7] bmcweb-2  failed  PASS 14, FAIL 2, WARN 0, NOT_TESTED 49, XFAIL 0, XPASS 0  6.1 s  exit 1" */
export function finishLine(t: FleetTarget, done: number, total: number): string {
  const counts = t.summary ? VERDICTS.map((v) => `${v} ${t.summary![v] ?? 0}`).join(', ') : '';
  return [`[${done}/${total}] ${t.name}`, statusText(t), counts, seconds(t.durationMs), exit(t)].filter(Boolean).join('  ');
}

export function fleetTable(targets: readonly FleetTarget[]): string[] {
  const rows = targets.map((t) => [
    t.name,
    t.platform ?? '',
    statusText(t),
    ...VERDICTS.map((v) => (t.summary ? String(t.summary[v] ?? 0) : '')),
    seconds(t.durationMs),
    t.exitCode === null ? '' : String(t.exitCode),
  ]);
  const align = ['l', 'l', 'l', ...VERDICTS.map(() => 'r'), 'r', 'r'];
  return markdownTable([['target', 'platform', 'result', ...VERDICTS, 'duration', 'exit'], ...rows], { align }).split('\n');
}
