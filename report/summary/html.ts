/**
 * summary.html: the one-page conformance certificate a lab hands over. Self-contained (no script,
 * no outside resource), printable, and with an evidence annex each requirement row links to.
 */
import { REQUIREMENTS } from '../../catalogue/requirements.js';
import { exchangeText, type Exchange } from '../../client/evidence.js';
import { createHash } from 'node:crypto';
import { isSubscription, REPLAY_PREAMBLE, replayLine, replayScript, timelineText } from '../../client/timeline.js';
import { VERDICTS, type RequirementResult, type Verdict } from '../../client/results.js';
import { newlyFailing, newlyPassing, otherChanges, planText, type Trend, type VerdictChange } from '../changes.js';
import { html, Html } from '../html.js';
import type { LoadRun } from '../load-figures.js';
import type { ReportContext, ReportOutput } from '../output.js';
import { catalogueVersion } from '../tool-info.js';
import { displayTarget } from '../target.js';
import { runNotices } from '../run-notices.js';
import { treeReadsLine } from '../../client/tree-reads.js';
import { pageMarginStyle, STYLE } from './style.js';
import { notJudgedByReason, notJudgedCount, PARTLY } from '../partly.js';

export const SUMMARY_HTML = 'summary.html';
/** Exchanges shown per test in the annex; results.json and the Allure report keep more. */
const EXCHANGES_PER_TEST = 5;

/**
 * What the printed annex (summary.pdf, or the page printed) keeps of a failing test's evidence: the
 * last exchanges, the last lines of its timeline, and of its replay every subscription with the last
 * requests. Whatever is cut is named with a count and the file that holds it.
 */
export const PRINTED = { exchanges: 1, timelineLines: 12, replayRequests: 8 };

type Row = RequirementResult & { expected?: string };

export const summaryHtml: ReportOutput = {
  files: [SUMMARY_HTML],
  async write(ctx) {
    await ctx.write(SUMMARY_HTML, summaryPage(ctx));
  },
};

const VERDICT_MEANING: Record<Verdict, string> = {
  PASS: 'every test of the requirement that judged it passed; “partly judged” names the tests that did not',
  FAIL: 'a test of a MUST or SAFETY requirement failed',
  WARN: 'passes, but deviates from what the spec shows, or an observation could not be recorded',
  NOT_TESTED: 'not run, with the reason',
  XFAIL: 'fails as the platform\u2019s expectations file says it does',
  XPASS: 'listed as an expected failure, but no longer fails',
};

export function summaryPage(ctx: Pick<ReportContext, 'results' | 'trend' | 'tool' | 'load'>): string {
  const r = ctx.results;
  const rows = r.requirements as Row[];
  const target = displayTarget(r.target);
  const page = html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance of ${target} — ${r.startedAt}</title>
<style>${new Html(STYLE)}${new Html(pageMarginStyle(`Conformance of ${target}, ${r.startedAt}`))}</style>
</head>
<body>
<header>
  <h1>Conformance report</h1>
  <p class="subtitle">Management REST interface of a baseboard management controller (the OpenBMC D-Bus REST dialect)</p>
  ${outcome(rows)}
  ${runNotices(r).map((n) => html`<p class="notice">${n}</p>`)}
</header>
${identity(ctx)}
<section id="counts">
  <h2>Verdicts</h2>
  <div class="counts">${VERDICTS.map((v) => html`<div class="count v-${v}"><span class="n">${r.summary[v] ?? 0}</span><span class="label">${v}</span></div>`)}</div>
  <dl class="legend">${VERDICTS.map((v) => html`<dt>${v}</dt><dd>${VERDICT_MEANING[v]}</dd>`)}</dl>
  ${r.treeReads ? html`<p class="tree-reads">${treeReadsLine(r.treeReads)}.</p>` : ''}
  ${(r.treeReads?.plan?.notes ?? []).map((n) => html`<p class="tree-reads">read budget: ${n}.</p>`)}
</section>
${trendSection(ctx.trend)}
<section id="requirements">
  <h2>Requirements</h2>
  <table class="requirements">
    <colgroup><col class="c-id"><col class="c-level"><col class="c-title"><col class="c-verdict"><col class="c-reason"><col class="c-evidence"></colgroup>
    <thead><tr><th>ID</th><th>Level</th><th>Requirement</th><th>Verdict</th><th>Reason</th><th>Evidence</th></tr></thead>
    <tbody>${problemsFirst(rows).map(requirementRow)}</tbody>
  </table>
</section>
${deviations(rows, r.expectations)}
${observations(r.observations)}
${ctx.load ? loadSection(ctx.load) : ''}
${signatures()}
<section id="evidence" class="annex">
  <h2>Annex: evidence</h2>
  <p>Each requirement's tests with their verdicts and reasons; for a test that failed or warned, its last ${EXCHANGES_PER_TEST} requests and responses, redacted (results.json and the Allure report keep up to 20), its timeline and the lines that replay it.</p>
  <p class="print-only">Printed, the requirements that did not pass; each of their tests that did not pass keeps ${PRINTED.exchanges === 1 ? 'its last request and response' : `its last ${PRINTED.exchanges} requests and responses`}, the last ${PRINTED.timelineLines} lines of its timeline, and of its replay every subscription and the last ${PRINTED.replayRequests} requests; what is cut is counted, with the file that holds it. Evidence that an earlier test printed already is named, not printed again.</p>
  ${annex(rows, r.target)}
</section>
<footer>${ctx.tool.name} ${ctx.tool.version} · catalogue of ${catalogueVersion(ctx.tool)} · started ${r.startedAt}</footer>
</body>
</html>
`;
  return page.text;
}

function outcome(rows: Row[]): Html {
  const failing = rows.filter((x) => x.verdict === 'FAIL');
  if (failing.length > 0)
    return html`<p class="outcome v-FAIL">Does not conform: ${failing.length === 1 ? '1 requirement fails' : `${failing.length} requirements fail`} (${failing.map((x) => x.id).join(', ')}).</p>`;
  const untested = rows.filter((x) => x.verdict === 'NOT_TESTED').length;
  if (untested === rows.length)
    return html`<p class="outcome v-NOT_TESTED">Nothing was judged: every requirement is not tested (the reasons are below).</p>`;
  const partly = rows.filter((x) => x.partly).length;
  const open = [...(untested > 0 ? [`${untested} not tested`] : []), ...(partly > 0 ? [`${partly} ${PARTLY}`] : [])];
  return html`<p class="outcome v-PASS">No requirement fails${open.length > 0 ? `; ${open.join(', ')}` : ''}.</p>`;
}

function identity(ctx: Pick<ReportContext, 'results' | 'tool' | 'trend'>): Html {
  const r = ctx.results;
  const fp = r.fingerprint;
  const entries: Array<[string, unknown]> = [
    ['Target', displayTarget(r.target)],
    ['Server', fp?.server],
    ['Firmware', fp?.firmware],
    ['Objects under the namespace', fp?.objects],
    ['Login form', fp?.loginForm],
    ['Namespace', r.namespace],
    ['Profile', r.profile],
    ['Expectations', r.expectations && [r.expectations.platform, r.expectations.file].filter(Boolean).join(', ')],
    ['Date', `${r.startedAt} (${(r.durationMs / 1000).toFixed(1)} s)`],
    ['Seed', r.seed],
    ['Coverage plan', planText(r)],
    ['Tool', `${ctx.tool.name} ${ctx.tool.version}`],
    ['Catalogue', catalogueVersion(ctx.tool)],
    [
      'Baseline',
      ctx.trend &&
        `${ctx.trend.previousStartedAt} (${ctx.trend.source})${ctx.trend.notComparable ? `, not compared: ${ctx.trend.notComparable}` : ''}`,
    ],
  ];
  return html`<section id="identity"><h2>Target and run</h2><dl class="identity">${entries
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl></section>`;
}

function trendSection(trend: Trend | undefined): Html {
  if (!trend)
    return html`<section id="changes"><h2>Changes since the baseline</h2><p>No baseline: no earlier run is kept in this folder and none was named.</p></section>`;
  if (trend.notComparable)
    return html`<section id="changes"><h2>Changes since the baseline</h2><p>Not compared with the run of ${trend.previousStartedAt}: ${trend.notComparable}.</p></section>`;
  const firmware = trend.firmware ? ` (firmware ${trend.firmware})` : '';
  if (trend.changes.length === 0)
    return html`<section id="changes"><h2>Changes since the baseline</h2><p>No verdict changed since the run of ${trend.previousStartedAt}${firmware}.</p></section>`;
  const list = (title: string, changes: VerdictChange[]): Html | '' =>
    changes.length === 0
      ? ''
      : html`<h3>${title}</h3><ul class="changes">${changes.map((c) => html`<li><a href="#${c.id}">${c.id}</a>: ${c.from} → <span class="badge v-${c.to}">${c.to}</span></li>`)}</ul>`;
  return html`<section id="changes"><h2>Changes since the baseline</h2><p>Compared with the run of ${trend.previousStartedAt}${firmware}.</p>
  ${list('Newly failing', newlyFailing(trend))}${list('Newly passing', newlyPassing(trend))}${list('Other changes', otherChanges(trend))}</section>`;
}

/** What a reader acts on first: failures, what asks for a change of the expectations, what was not judged, then passes. */
const VERDICT_RANK: Record<Verdict, number> = { FAIL: 0, XPASS: 1, WARN: 2, XFAIL: 3, NOT_TESTED: 4, PASS: 5 };

/**
 * Rows by verdict, problems first; NOT_TESTED grouped by reason (one cause, one block); the
 * catalogue's order otherwise.
 */
export function problemsFirst<T extends { verdict: Verdict; reason?: string }>(rows: readonly T[]): T[] {
  const reason = (row: T): string => (row.verdict === 'NOT_TESTED' ? (row.reason ?? '') : '');
  return rows
    .map((row, i) => ({ row, i }))
    .sort((a, b) => VERDICT_RANK[a.row.verdict] - VERDICT_RANK[b.row.verdict] || reason(a.row).localeCompare(reason(b.row)) || a.i - b.i)
    .map((x) => x.row);
}

function requirementRow(row: Row): Html {
  const tests = row.tests.length;
  return html`<tr id="${row.id}" class="row-${row.verdict}">
    <td class="id">${row.id}</td>
    <td>${row.level}</td>
    <td>${row.title}<div class="section">spec: ${row.section}</div></td>
    <td><span class="badge v-${row.verdict}">${row.verdict}</span>${row.partly ? html`<div class="partly">${PARTLY}</div>` : ''}</td>
    <td class="reason">${row.reason ?? ''}${row.expected !== undefined ? html`<div class="expected">expected: ${row.expected}</div>` : ''}${partlyNote(row)}</td>
    <td>${tests > 0 ? html`<a href="#evidence-${row.id}">${tests} test${tests === 1 ? '' : 's'}</a>` : '—'}</td>
  </tr>`;
}

/** The tests that did not judge a partly judged requirement, by reason. */
function partlyNote(row: Row): Html | '' {
  if (!row.partly) return '';
  return html`<div class="partly">${notJudgedCount(row)}:<ul class="partly">${notJudgedByReason(row).map(
    (g) => html`<li>${g.reason}: ${g.tests.join('; ')}</li>`,
  )}</ul></div>`;
}

function deviations(rows: Row[], expectations: { file: string; platform?: string } | undefined): Html {
  const listed = rows.filter((x) => x.expected !== undefined);
  if (!expectations && listed.length === 0) return html``;
  return html`<section id="deviations"><h2>Expected deviations</h2>
  <p>Known deviations of the platform${expectations?.platform ? html` ${expectations.platform}` : ''}, recorded in ${expectations?.file ?? 'the expectations file'}. An expected failure (XFAIL) does not fail the run; one that no longer fails where every test of it was judged (XPASS) asks for the file to be updated; a PASS of only some of its tests leaves the file as it is.</p>
  ${
    listed.length === 0
      ? html`<p>The file lists none of the requirements of this run.</p>`
      : html`<table><thead><tr><th>ID</th><th>Verdict</th><th>Why it is expected</th><th>What the run found</th></tr></thead>
  <tbody>${listed.map((x) => html`<tr><td class="id"><a href="#${x.id}">${x.id}</a></td><td><span class="badge v-${x.verdict}">${x.verdict}</span></td><td>${x.expected}</td><td class="reason">${x.reason ?? ''}</td></tr>`)}</tbody></table>`
  }</section>`;
}

function observations(recorded: Array<{ requirement: string; key: string; value: unknown; test: string }>): Html {
  if (recorded.length === 0) return html``;
  // One row per requirement, key and value, however many tests recorded it; catalogue order.
  const order = new Map(REQUIREMENTS.map((r, i) => [r.id, i]));
  const rows = new Map<string, { requirement: string; key: string; value: unknown; tests: number }>();
  for (const o of recorded) {
    const id = `${o.requirement}\u0000${o.key}\u0000${valueText(o.value)}`;
    const row = rows.get(id);
    if (row) row.tests += 1;
    else rows.set(id, { requirement: o.requirement, key: o.key, value: o.value, tests: 1 });
  }
  const list = [...rows.values()].sort((a, b) => (order.get(a.requirement) ?? order.size) - (order.get(b.requirement) ?? order.size));
  return html`<section id="observations"><h2>Observations</h2>
  <p>What the spec leaves open, as this target answers it (never a failure).</p>
  <table class="observations"><colgroup><col class="c-id"><col class="c-key"><col class="c-value"></colgroup><thead><tr><th>Requirement</th><th>Observed</th><th>Value</th></tr></thead>
  <tbody>${list.map(
    (o) =>
      html`<tr><td class="id"><a href="#${o.requirement}">${o.requirement}</a></td><td class="key">${o.key}${o.tests > 1 ? html` <span class="muted">(${o.tests} tests)</span>` : ''}</td><td class="value">${valueCell(o.value)}</td></tr>`,
  )}</tbody></table></section>`;
}

/** A value as a person reads it: an object as its members one per line, a list of words as a list, JSON otherwise. */
function valueCell(value: unknown): Html | string {
  const scalar = (v: unknown): boolean => v === null || ['string', 'number', 'boolean', 'bigint'].includes(typeof v);
  const words = (v: unknown): string => (Array.isArray(v) && v.every(scalar) ? v.map((x) => valueText(x)).join(', ') : valueText(v));
  if (Array.isArray(value) && value.every(scalar)) return words(value);
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    const entries = Object.entries(value as Record<string, unknown>);
    return html`<dl class="members">${entries.map(([k, v]) => html`<dt>${k}</dt><dd>${words(v)}</dd>`)}</dl>`;
  }
  return valueText(value);
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value);
  } catch {
    return String(value);
  }
}

function loadSection(load: LoadRun): Html {
  const fmt = (n: number | undefined, digits = 0): string => (n === undefined ? '—' : n.toFixed(digits));
  const max = Math.max(1, ...load.scenarios.map((s) => s.requestsPerSecond ?? 0));
  return html`<section id="load"><h2>Load</h2>
  <p>From the load run beside this one (${load.file}${load.startedAt ? html`, ${load.startedAt}` : ''}).${load.problem ? html` ${load.problem}.` : ''}</p>
  ${
    load.scenarios.length > 0
      ? html`<table><thead><tr><th>Scenario</th><th class="num">Requests</th><th class="num">Requests/s</th><th class="num">p50 ms</th><th class="num">p99 ms</th><th class="bars">Throughput</th></tr></thead>
  <tbody>${load.scenarios.map(
    (
      s,
    ) => html`<tr><td>${s.name}</td><td class="num">${fmt(s.requests)}</td><td class="num">${fmt(s.requestsPerSecond)}</td><td class="num">${fmt(s.p50Ms, 1)}</td><td class="num">${fmt(s.p99Ms, 1)}</td>
  <td class="bars"><svg width="160" height="12" role="img" aria-label="${fmt(s.requestsPerSecond)} requests per second"><rect width="${((160 * (s.requestsPerSecond ?? 0)) / max).toFixed(1)}" height="12" class="bar"></rect></svg></td></tr>`,
  )}</tbody></table>`
      : ''
  }
  ${load.charts.length > 0 ? html`<p>Charts: ${load.charts.map((c, i) => html`${i > 0 ? ', ' : ''}<a href="${c}">${c}</a>`)}</p>` : ''}</section>`;
}

function signatures(): Html {
  return html`<section id="signatures"><h2>Sign-off</h2>
  <table class="signatures"><tr><th>Tested by</th><td></td><th>Date</th><td></td></tr><tr><th>Reviewed by</th><td></td><th>Signature</th><td></td></tr></table></section>`;
}

/** The annex: each requirement's tests; a test's evidence is printed once, where a test that did not pass first shows it. */
function annex(rows: readonly Row[], target: string): Html {
  const printedBy = new Map<string, string>();
  const listed = rows.filter((x) => x.tests.length > 0);
  const passed = listed.filter((x) => x.verdict === 'PASS');
  return html`${
    passed.length > 0
      ? html`<p class="print-only more">Not printed: the ${plural(passed.length, 'requirement')} that passed, with their ${plural(
          passed.reduce((n, x) => n + x.tests.length, 0),
          'test',
        )}; summary.html lists them.</p>`
      : ''
  }
  ${listed.map((row) => evidence(row, target, printedBy))}`;
}

function evidence(row: Row, target: string, printedBy: Map<string, string>): Html {
  // On paper a requirement that passed is counted above, not listed.
  const printed = row.verdict !== 'PASS';
  return html`<article id="evidence-${row.id}" class="evidence${printed ? '' : ' no-print'}">
  <h3><a href="#${row.id}">${row.id}</a> <span class="badge v-${row.verdict}">${row.verdict}</span>${row.partly ? html` <span class="partly">${PARTLY}</span>` : ''} ${row.title}</h3>
  ${row.tests.map(
    (t) => html`<div class="test"><p><span class="badge v-${t.verdict}">${t.verdict}</span> ${t.name}</p>
    ${t.reason ? html`<p class="reason">${t.reason}</p>` : ''}
    ${testEvidence(row.id, t, printed, target, printedBy)}</div>`,
  )}
</article>`;
}

/**
 * A test's last exchanges, its timeline and its replay: all on screen; on paper, within PRINTED, for
 * a test that did not pass in a requirement that did not, and only where no earlier test printed the
 * same evidence (the events tests share theirs).
 */
function testEvidence(
  id: string,
  t: { verdict: Verdict; evidence?: Exchange[] },
  rowPrinted: boolean,
  target: string,
  printedBy: Map<string, string>,
): Html | string {
  const all = t.evidence ?? [];
  if (all.length === 0) return '';
  const shown = all.slice(-EXCHANGES_PER_TEST);
  const key = createHash('sha256').update(JSON.stringify(all)).digest('hex');
  const printedUnder = printedBy.get(key);
  const printed = rowPrinted && t.verdict !== 'PASS' && printedUnder === undefined;
  if (printed) printedBy.set(key, id);
  const count = plural(all.length, 'exchange');
  const last = PRINTED.exchanges === 1 ? 'the last' : `the last ${PRINTED.exchanges}`;
  // A requirement that passed is not on paper at all: its tests need no note.
  const note = !rowPrinted
    ? ''
    : printed
      ? all.length <= PRINTED.exchanges
        ? ''
        : `Printed: ${last} of its ${count}; ${all.length === shown.length ? `summary.html and results.json show all ${all.length}` : `summary.html shows the last ${shown.length}, results.json all ${all.length}`}.`
      : printedUnder !== undefined
        ? `Not printed again: the same ${count} as under ${printedUnder} above.`
        : `Not printed: its ${count} (the test passed); summary.html and results.json hold them.`;
  const paper = (k: number): string => (printed && k >= shown.length - PRINTED.exchanges ? '' : ' no-print');
  return html`${note ? html`<p class="print-only more">${note}</p>` : ''}
    ${shown.map((x, k) => {
      const text = exchangeText(x);
      return html`<div class="exchange${paper(k)}"><figure><figcaption>Request</figcaption><pre>${text.request}</pre></figure><figure><figcaption>Response</figcaption><pre>${text.response}</pre></figure></div>`;
    })}
    <div class="replay-figures${printed ? '' : ' no-print'}">
    <details class="timeline"><summary>Timeline: the test's requests and event messages in time order</summary><pre>${timelineLines(all, printed)}</pre></details>
    <details class="replay"><summary>Replay: curl and websocat lines (set COOKIE, XSRF and PASSWORD first)</summary><pre>${replayLines(all, target, printed)}</pre></details></div>`;
}

/** The timeline; on paper its last PRINTED.timelineLines lines, the earlier ones counted. */
function timelineLines(all: readonly Exchange[], printed: boolean): Html | string {
  const lines = timelineText(all).split('\n');
  const cut = printed ? Math.max(0, lines.length - PRINTED.timelineLines) : 0;
  if (cut === 0) return lines.join('\n');
  return html`<span class="print-only">… ${plural(cut, 'earlier line')}: the timeline in summary.html\n</span><span class="no-print">${lines.slice(0, cut).join('\n')}\n</span>${lines.slice(cut).join('\n')}`;
}

/**
 * The replay script; on paper every subscription (an event's test needs its sockets open) and the
 * last PRINTED.replayRequests requests, each run of requests left out named by a shell comment.
 */
function replayLines(all: readonly Exchange[], target: string, printed: boolean): Html | string {
  const base = displayTarget(target);
  if (!printed) return replayScript(all, base);
  const requests = all.filter((x) => !isSubscription(x)).length;
  const firstKept = requests - PRINTED.replayRequests;
  const parts: Html[] = [html`${REPLAY_PREAMBLE}`];
  let request = 0;
  let left: string[] = [];
  const flush = (): void => {
    if (left.length === 0) return;
    parts.push(
      html`<span class="print-only">\n# … ${plural(left.length, 'earlier request')} left out here: the replay in summary.html holds every line</span><span class="no-print">\n${left.join('\n')}</span>`,
    );
    left = [];
  };
  for (const x of all) {
    const line = replayLine(x, base);
    if (!isSubscription(x) && request++ < firstKept) left.push(line);
    else {
      flush();
      parts.push(html`\n${line}`);
    }
  }
  flush();
  return html`${parts}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
