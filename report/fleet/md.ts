/** summary.md of a fleet folder: targets, failing requirements across the fleet, the matrix, the changes. */
import { markdownTable } from 'markdown-table';
import { requirement } from '../../catalogue/requirements.js';
import { VERDICTS, type Verdict } from '../../client/results.js';
import { fleetNewlyFailing, fleetNewlyPassing, fleetOtherChanges } from './changes.js';
import { acrossSentence, fleetHeadline, judgedTargets, requirementAcross, statusText } from './counts.js';
import { requirementIds, type FleetChange, type FleetChanges, type FleetMatrix } from './matrix.js';
import { md } from '../summary/md.js';
import { catalogueVersion } from '../tool-info.js';

/** One or two characters a cell: a matrix of forty targets must still fit a job page. */
export const VERDICT_CODE: Record<Verdict, string> = { PASS: 'P', FAIL: 'F', WARN: 'W', NOT_TESTED: '–', XFAIL: 'xF', XPASS: 'xP' };
/** After a cell's code: the verdict rests on some of the requirement's tests (partly judged). */
export const PARTLY_MARK = '*';

export function fleetMarkdown(m: FleetMatrix): string {
  const lines = [
    `## Fleet conformance: ${fleetHeadline(m)}`,
    '',
    targetsTable(m),
    '',
    shardsLine(m),
    '',
    '### Failing across the fleet',
    '',
  ];
  const ids = requirementIds(m);
  const failing = ids
    .map((id) => requirementAcross(m, id))
    .filter((r) => r.counts.FAIL + r.counts.XFAIL > 0)
    .sort((a, b) => b.counts.FAIL - a.counts.FAIL);
  if (failing.length === 0) lines.push('No requirement fails on any machine.');
  for (const r of failing) lines.push(`- **${r.id}** ${md(titleOf(r.id))}: ${md(acrossSentence(r))}`);
  lines.push('', ...matrix(m, ids), '', ...changes(m.changes));
  return `${lines.join('\n')}\n`;
}

function targetsTable(m: FleetMatrix): string {
  const rows = m.targets.map((t) => [
    md(t.name),
    md(t.platform ?? ''),
    md(statusText(t)),
    ...VERDICTS.map((v) => (t.summary ? String(t.summary[v] ?? 0) : '')),
    `${(t.durationMs / 1000).toFixed(1)} s`,
    t.exitCode === null ? '—' : String(t.exitCode),
  ]);
  return markdownTable([['target', 'platform', 'result', ...VERDICTS, 'duration', 'exit'], ...rows]);
}

function shardsLine(m: FleetMatrix): string {
  const shards = m.shards.map((s) => `${s.index}/${s.count}`).join(', ');
  return `Started ${md(m.startedAt)}; shards ${shards}; ${m.tool.name} ${m.tool.version}, catalogue of ${catalogueVersion(m.tool)}.`;
}

function matrix(m: FleetMatrix, ids: string[]): string[] {
  const judged = judgedTargets(m);
  if (judged.length === 0) return ['### Matrix', '', 'No target gave verdicts.'];
  // A requirement no machine tested says nothing about the fleet: counted, not shown.
  const shown = ids.filter((id) => judged.some((t) => t.verdicts![id] !== undefined && t.verdicts![id] !== 'NOT_TESTED'));
  const legend = `${VERDICTS.map((v) => `${VERDICT_CODE[v]} ${v}`).join(', ')}; ${md(PARTLY_MARK)} partly judged (some tests of it not judged)`;
  const rows = shown.map((id) => [
    id,
    ...judged.map((t) => `${VERDICT_CODE[t.verdicts![id]!] ?? ''}${t.partly?.[id] !== undefined ? md(PARTLY_MARK) : ''}`),
    md(acrossSentence(requirementAcross(m, id))),
  ]);
  return [
    '### Matrix',
    '',
    `${legend}.${shown.length < ids.length ? ` ${ids.length - shown.length} requirements no machine tested are left out.` : ''}`,
    '',
    markdownTable([['requirement', ...judged.map((t) => md(t.name)), 'across the fleet'], ...rows]),
  ];
}

function changes(c: FleetChanges | undefined): string[] {
  const lines = ['### Changes since the previous fleet run', ''];
  if (!c) return [...lines, 'No previous fleet run was named (--previous).'];
  lines.push(`Compared with the fleet run of ${md(c.previousStartedAt)} (${md(c.source)}):`, '');
  const before = lines.length;
  const list = (title: string, xs: FleetChange[]): void => {
    if (xs.length > 0) lines.push(`- **${title}**: ${xs.map((x) => `${md(x.target)} ${x.id} (${x.from} → ${x.to})`).join(', ')}`);
  };
  list('Newly failing', fleetNewlyFailing(c));
  list('Newly passing', fleetNewlyPassing(c));
  list('Other changes', fleetOtherChanges(c));
  if (c.statusChanges.length > 0)
    lines.push(`- **Targets whose result changed**: ${c.statusChanges.map((s) => `${md(s.target)} (${s.from} → ${s.to})`).join(', ')}`);
  if (c.added.length > 0) lines.push(`- **New targets**: ${c.added.map(md).join(', ')}`);
  if (c.removed.length > 0) lines.push(`- **Targets no longer in the fleet**: ${c.removed.map(md).join(', ')}`);
  if (lines.length === before) lines.push('Nothing changed.');
  return lines;
}

export function titleOf(id: string): string {
  try {
    return requirement(id).title;
  } catch {
    return '(not in this catalogue)';
  }
}
