/**
 * summary.md, for CI job pages: the counts, each FAIL with its reason, each PASS that rests on some
 * of its tests (partly judged) with the tests not judged, and what changed since the baseline.
 * Appended to $GITHUB_STEP_SUMMARY as well when that is set.
 */
import { appendFile } from 'node:fs/promises';
import { markdownTable } from 'markdown-table';
import { brief } from '../../client/headline.js';
import { VERDICTS, nothingJudged, type Verdict } from '../../client/results.js';
import { newlyFailing, newlyPassing, otherChanges, planText, type VerdictChange } from '../changes.js';
import type { ReportContext, ReportOutput } from '../output.js';
import { catalogueVersion } from '../tool-info.js';
import { displayTarget } from '../target.js';
import { runNotices } from '../run-notices.js';
import { treeReadsLine } from '../../client/tree-reads.js';
import { partlyText, PARTLY } from '../partly.js';

export const SUMMARY_MD = 'summary.md';
const REASON_LIMIT = 300;

export const summaryMd: ReportOutput = {
  files: [SUMMARY_MD],
  async write(ctx) {
    const text = summaryMarkdown(ctx);
    await ctx.write(SUMMARY_MD, text);
    const stepSummary = process.env.GITHUB_STEP_SUMMARY;
    if (stepSummary) await appendFile(stepSummary, ctx.redact(text));
  },
};

export function summaryMarkdown(ctx: Pick<ReportContext, 'results' | 'trend' | 'tool'>): string {
  const r = ctx.results;
  const s = r.summary;
  const target = displayTarget(r.target);
  const headline = s.FAIL > 0 ? `${s.FAIL} FAIL` : nothingJudged(s) ? 'nothing judged' : 'no FAIL';
  const fp = r.fingerprint;
  const plan = planText(r);
  const identity = [fp?.server && `server ${fp.server}`, fp?.firmware && `firmware ${fp.firmware}`].filter(Boolean).join(', ');
  const lines = [
    `## Conformance of ${md(target)}: ${headline}`,
    '',
    markdownTable([[...VERDICTS], VERDICTS.map((v) => String(s[v] ?? 0))], { align: VERDICTS.map(() => 'r') }),
    '',
    `${identity ? `${md(identity)}; ` : ''}profile ${md(r.profile)}, namespace ${md(r.namespace)}, seed ${r.seed}, started ${md(r.startedAt)}; ` +
      (plan ? `plan: ${md(plan)}; ` : '') +
      `${ctx.tool.name} ${ctx.tool.version}, catalogue of ${catalogueVersion(ctx.tool)}.`,
  ];
  // What the target's costliest reads cost this run (results.json: treeReads).
  if (r.treeReads) lines.push('', md(`${treeReadsLine(r.treeReads)}.`));
  // What the run planned for those costs (runner/read-costs.ts), as the console says it.
  for (const note of r.treeReads?.plan?.notes ?? []) lines.push('', md(`read budget: ${note}.`));
  for (const notice of runNotices(r)) lines.push('', `> **${md(notice)}**`);
  for (const verdict of ['FAIL', 'XPASS'] as Verdict[]) {
    const reqs = r.requirements.filter((x) => x.verdict === verdict);
    if (reqs.length === 0) continue;
    lines.push('', `### ${verdict === 'FAIL' ? 'FAIL' : 'XPASS (expected to fail, now passes: update the expectations file)'}`, '');
    lines.push(markdownTable([['ID', 'level', 'reason'], ...reqs.map((x) => [x.id, x.level, md(brief(x.reason ?? '', REASON_LIMIT))])]));
  }
  const partly = r.requirements.filter((x) => x.partly);
  if (partly.length > 0) {
    lines.push('', `### PASS, ${PARTLY} (the verdict rests on the tests that judged it)`, '');
    lines.push(
      markdownTable([
        ['ID', 'verdict', 'not judged'],
        ...partly.map((x) => [
          x.id,
          `${x.verdict}${x.expected !== undefined ? ' (expected FAIL not seen)' : ''}`,
          md(brief(partlyText(x), REASON_LIMIT)),
        ]),
      ]),
    );
  }
  lines.push('', '### Changes since the baseline', '');
  const firmware = ctx.trend?.firmware ? ` (firmware ${md(ctx.trend.firmware)})` : '';
  if (!ctx.trend) lines.push('No baseline: no earlier run is kept in this folder and none was named with --previous.');
  else if (ctx.trend.notComparable)
    lines.push(`Not compared with the run of ${md(ctx.trend.previousStartedAt)}: ${md(ctx.trend.notComparable)}.`);
  else if (ctx.trend.changes.length === 0) lines.push(`No verdict changed since the run of ${md(ctx.trend.previousStartedAt)}${firmware}.`);
  else {
    lines.push(`Compared with the run of ${md(ctx.trend.previousStartedAt)}${firmware}:`, '');
    const groups: Array<[string, VerdictChange[]]> = [
      ['Newly failing', newlyFailing(ctx.trend)],
      ['Newly passing', newlyPassing(ctx.trend)],
      ['Other changes', otherChanges(ctx.trend)],
    ];
    for (const [title, changes] of groups) {
      if (changes.length > 0) lines.push(`- **${title}**: ${changes.map((c) => `${c.id} (${c.from} → ${c.to})`).join(', ')}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Reasons quote what the target answered: nothing in them may become a link, an image, emphasis
 * or a table cell border on the job page.
 */
export function md(text: string): string {
  return text
    .replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!)
    .replace(/[\\`*_[\]|#!~]/g, (c) => `\\${c}`)
    .replace(/\r?\n/g, ' ');
}
