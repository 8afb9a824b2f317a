/**
 * load.html: one self-contained page (uPlot and its stylesheet inlined, the data embedded), so it
 * opens from a CI artefact or an e-mail with nothing fetched at view time.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { LoadDocument } from '../load-document.js';
import { PAGE_SCRIPT } from './page-script.js';
import type { ScenarioReport } from './model.js';
import { verdictLine } from '../terminal.js';
import { describeMiss, isDefaultThreshold } from '../thresholds.js';
import { operationCount } from '../verify/timeline-svg.js';

export async function renderLoadHtml(doc: LoadDocument): Promise<string> {
  const require = createRequire(import.meta.url);
  const [uplotJs, uplotCss] = await Promise.all([
    readFile(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    readFile(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  ]);
  // The page needs no histogram: its curves are already in the results.
  const pageData = {
    ...doc,
    results: doc.results.map(({ histogram: _h, ...r }) => ({ ...r, ...(r.events && { events: { ...r.events, histogram: undefined } }) })),
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Load: ${esc(doc.target)} ${esc(doc.startedAt)}</title>
<style>${uplotCss}</style>
<style>${PAGE_CSS}</style>
</head>
<body>
<header>
<h1>Load run: ${esc(doc.target)}</h1>
<p>${esc(doc.startedAt)} · ${doc.durationS.toFixed(1)} s · profile ${esc(doc.settings.profile)} · mode ${esc(doc.settings.mode)}${doc.embedded ? ' · embedded simulator' : ''}${doc.faults.length ? ` · faults ${esc(doc.faults.join(', '))}` : ''}</p>
<p class="verdict ${doc.verdict}">${esc(verdictLine(doc))}</p>
${doc.interrupted ? `<p class="interrupted">Stopped by ${esc(doc.interrupted.signal)} at ${esc(doc.interrupted.at)}: the figures below are those measured until then.</p>` : ''}
${doc.failures.length ? `<ul class="failures">${doc.failures.map((f) => `<li>${esc(f)}</li>`).join('')}</ul>` : ''}
</header>
<main>
<section><h2>Scenarios</h2>${summaryTable(doc.results)}</section>
<section><h2>Latency</h2><div id="chart-percentiles" class="chart"></div></section>
<section><h2>Over time</h2><div id="chart-throughput" class="chart"></div><div id="chart-latency" class="chart"></div></section>
${doc.results.map((r, n) => scenarioSection(r, n)).join('\n')}
${capacitySection(doc)}
${verificationSection(doc)}
${thresholdSection(doc)}
${baselineSection(doc)}
${restoreSection(doc)}
${doc.notes.length ? `<section><h2>Notes</h2><ul>${doc.notes.map((x) => `<li>${esc(x)}</li>`).join('')}</ul></section>` : ''}
<section><h2>Environment and settings</h2>${keyValues({ ...flatten(doc.environment), ...flatten(doc.settings) })}</section>
</main>
<script id="load-data" type="application/json">${jsonForScript(pageData)}</script>
<script>${uplotJs}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

const PAGE_CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 24px 48px; color: #222; }
h1 { font-size: 22px; margin: 18px 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; }
h3 { font-size: 15px; margin: 18px 0 6px; }
table { border-collapse: collapse; margin: 6px 0; } th, td { padding: 3px 10px; border-bottom: 1px solid #eee; text-align: right; }
th:first-child, td:first-child, th.text, td.text { text-align: left; } th { background: #f4f4f4; }
.verdict { font-weight: bold; font-size: 16px; } .verdict.pass { color: #1a7f37; } .verdict.fail { color: #c62828; }
.verdict.interrupted { color: #9a6700; }
.timeline svg { max-width: 100%; height: auto; } code.key { word-break: break-all; font-size: 11px; }
.miss { color: #c62828; font-weight: bold; } .ok { color: #1a7f37; } .muted { color: #666; }
.chart { margin: 8px 0 18px; max-width: 1320px; }
.kv td { text-align: left; }
/* A legend at rest names its series; values appear while the pointer is over the chart. */
.at-rest .u-legend .u-value, .at-rest .u-legend .u-series:first-child { display: none; }
.at-rest .u-legend.u-inline.u-live th::after { content: none; }
`;

function summaryTable(results: ScenarioReport[]): string {
  const head = [
    'scenario',
    'mode',
    'requests',
    'req/s',
    'p50 ms',
    'p90 ms',
    'p99 ms',
    'p99.9 ms',
    'max ms',
    'failed',
    'non-2xx',
    'timeouts',
    'KB/s',
    'stopped by',
  ];
  const rows = results.map((r) => [
    r.scenario,
    r.mode + (r.rate ? ` @${r.rate}/s` : ''),
    r.requests,
    r.requestsPerSecond.toFixed(1),
    ms(r.latency.p50),
    ms(r.latency.p90),
    ms(r.latency.p99),
    ms(r.latency.p999),
    ms(r.latency.max),
    r.failed,
    r.non2xx,
    r.timeouts,
    (r.bytesPerSecond / 1024).toFixed(1),
    r.stopNote ?? r.stoppedBy,
  ]);
  return table(head, rows);
}

function scenarioSection(r: ScenarioReport, n: number): string {
  const parts: string[] = [];
  if (r.capacity || (r.steps && r.steps.length > 1)) parts.push(`<div id="chart-steps-${n}" class="chart"></div>`);
  if (r.capacity) {
    const c = r.capacity;
    parts.push(
      `<p>Highest sustained rate: <b>${c.sustainableRps} requests/s</b> ${c.criterion === 'conformant' ? `still conformant (each step judged by its own verification)${c.p99BoundMs === undefined ? '' : `, with p99 at most ${c.p99BoundMs} ms`}` : `with p99 at most ${c.p99BoundMs} ms`} and no failure (limited by ${esc(c.limitedBy)}).${c.brokenFrom ? ` <span class="miss">${esc(c.brokenFrom.requirement)} broken from ${c.brokenFrom.rps} req/s on</span>: ${esc(c.brokenFrom.problem)}` : ''}</p>`,
    );
    parts.push(
      table(
        ['step', 'phase', 'offered /s', 'requests', 'failed', 'p50 ms', 'p99 ms', 'send lag p99 ms', 'sustained'],
        c.steps.map((s, i) => [
          i + 1,
          s.phase,
          s.rate,
          s.requests,
          s.failed,
          ms(s.p50),
          ms(s.p99),
          ms(s.sendLagP99),
          `${s.sustained ? 'yes' : `no: ${s.why}`}${s.cutShort ? ` (${s.cutShort})` : ''}`,
        ]),
      ),
    );
  } else if (r.steps && r.steps.length > 1) {
    parts.push(
      table(
        ['step', 'rate /s', 's', 'requests', 'failed', 'p50 ms', 'p99 ms'],
        r.steps.map((s, i) => [i + 1, s.rate, s.durationS, s.requests, s.failed, ms(s.latency.p50), ms(s.latency.p99)]),
      ),
    );
  }
  if (r.events) {
    const e = r.events;
    parts.push(
      `<p>${e.subscribers} subscribers (${e.live} live before measuring), ${e.writes} writes: ${e.delivered} of ${e.expected} events delivered, <b>${e.lost} lost</b>, <b>${e.duplicated} duplicated</b>, ${e.unexpected} unexpected. Delivery p50 ${ms(e.latency.p50)} ms, p99 ${ms(e.latency.p99)} ms, max ${ms(e.latency.max)} ms.</p>`,
    );
    parts.push(`<div id="chart-events-${n}" class="chart"></div>`);
    parts.push(
      table(
        ['subscriber', 'paths', 'live', 'expected', 'delivered', 'lost', 'duplicated', 'unexpected', 'p50 ms', 'p99 ms', 'max ms'],
        e.perSubscriber.map((s) => [
          s.index + 1,
          s.paths.length,
          s.live ? 'yes' : 'no',
          s.expected,
          s.delivered,
          s.lost,
          s.duplicated,
          s.unexpected,
          ms(s.latency.p50),
          ms(s.latency.p99),
          ms(s.latency.max),
        ]),
      ),
    );
  }
  if (r.uploads)
    parts.push(
      `<p>${r.uploads.uploaded} images uploaded, ${r.uploads.deleted} versions deleted again${r.uploads.leftOver.length ? `; <span class="miss">left over: ${esc(r.uploads.leftOver.join(', '))}</span>` : ''}.</p>`,
    );
  if (r.drift) {
    const d = r.drift;
    parts.push(
      `<p>Soak drift over ${d.windows} windows of ${d.windowS} s, first to last: p50 ${signed(d.p50ChangePct)} %, p99 ${signed(d.p99ChangePct)} %, requests/s ${signed(d.rpsChangePct)} %, error rate ${signed(d.errorRateChangePoints)} points.</p>`,
    );
  }
  if (r.windows && r.windows.length > 1) parts.push(`<div id="chart-windows-${n}" class="chart"></div>`);
  if (parts.length === 0) return '';
  return `<section><h2>${esc(r.scenario)}</h2><p>${esc(r.description)}</p>${parts.join('\n')}</section>`;
}

function capacitySection(doc: LoadDocument): string {
  const { sessions, subscribers } = doc.capacity;
  if (!sessions && !subscribers) return '';
  const rows: (string | number)[][] = [];
  if (sessions)
    rows.push([
      'concurrent sessions',
      `${sessions.sessions}${sessions.stoppedBy === 'bound' ? ' (at least: the bound)' : ''}`,
      sessions.detail,
      `${sessions.loggedOut} of its sessions logged out`,
    ]);
  if (subscribers)
    rows.push([
      'WebSocket subscribers',
      `${subscribers.subscribers}${subscribers.stoppedBy === 'bound' ? ' (at least: the bound)' : ''}`,
      subscribers.detail,
      subscribers.delivering === undefined ? '' : `${subscribers.delivering} delivered the check write's event`,
    ]);
  return `<section><h2>Target capacity</h2>${table(['what', 'held at once', 'how it ended', 'afterwards'], rows)}</section>`;
}

function thresholdSection(doc: LoadDocument): string {
  if (doc.thresholds.length === 0) return '';
  const given = doc.thresholds.some((t) => !isDefaultThreshold(t));
  const rows = doc.thresholds.map((t) => [
    t.scenario ?? t.scope,
    `${t.rule}${isDefaultThreshold(t) ? ' (default)' : ''}`,
    t.actual ?? '',
    t.note ?? '',
    // A rule of a scenario this run did not select passes nothing: it was not evaluated.
    !t.pass ? '<span class="miss">MISS</span>' : t.note ? '<span class="muted">not evaluated</span>' : '<span class="ok">pass</span>',
  ]);
  const misses = doc.thresholds.filter((t) => !t.pass).map(describeMiss);
  const lead = given
    ? ''
    : '<p>No thresholds given (--thresholds, --min-rps, --max-p99): each scenario is only held to no failed request.</p>';
  return `<section><h2>${given ? 'Thresholds' : 'Failed requests'}</h2>${lead}${table(['scenario', 'rule', 'actual', 'note', 'result'], rows, true)}${misses.length ? `<ul>${misses.map((m) => `<li class="miss">${esc(m)}</li>`).join('')}</ul>` : ''}</section>`;
}

/** load --verify: each requirement judged under load, and the timeline of a failing register history. */
function verificationSection(doc: LoadDocument): string {
  const v = doc.verification;
  if (!v) return '';
  const rows = v.requirements.map((r) => [
    r.id,
    r.title,
    r.firstRps === undefined ? '' : `from ${r.firstRps} req/s (${r.scenario ?? ''})`,
    r.problem ?? '',
    r.verdict === 'FAIL' ? `<span class="miss">FAIL</span> ×${r.count ?? 1}` : '<span class="ok">PASS</span>',
  ]);
  const evidence = v.requirements
    .filter((r) => r.evidence)
    .map((r) => {
      const e = r.evidence!;
      const text = [e.request, e.requestBody, e.status === undefined ? undefined : `→ ${e.status}`, e.responseBody]
        .filter(Boolean)
        .join('\n');
      return `<details><summary>${esc(r.id)}: the first answer that broke it</summary><pre>${esc(text)}</pre></details>`;
    })
    .join('');
  const reg = v.register;
  const rounds = reg
    ? `<p>Register ${esc(reg.path)} ${esc(reg.name)}: ${reg.sessions} sessions PUT and GET it while each scenario runs${reg.sibling ? `, one more writes ${esc(reg.sibling)} of the same object` : ''}.</p>${table(
        [
          'scenario',
          'operations',
          'failed',
          'events per filter (owed / delivered / lost / duplicated / reordered / excluded yet received)',
          'history',
        ],
        reg.rounds.map((r) => [
          r.rate === undefined ? r.scenario : `${r.scenario} at ${r.rate} req/s`,
          r.operations,
          r.failed,
          r.streams
            ? r.streams
                .map((x) =>
                  x.closed
                    ? `${x.kind}: closed by the target, not judged`
                    : `${x.kind}: ${x.expected} / ${x.delivered} / ${x.lost} / ${x.duplicated} / ${x.reordered} / ${x.foreign}`,
                )
                .join('; ')
            : r.events
              ? `${r.events.expected} / ${r.events.delivered} / ${r.events.lost} / ${r.events.duplicated} / ${r.events.reordered}`
              : '',
          r.verdict === 'not-linearizable'
            ? '<span class="miss">not linearizable</span>'
            : r.verdict === 'linearizable'
              ? '<span class="ok">linearizable</span>'
              : `<span class="muted">${esc(r.note ?? 'unknown')}</span>`,
        ]),
        true,
      )}${reg.rounds
        .filter((r) => r.violation)
        .map(
          (r) =>
            `<h3>${esc(r.scenario)}${r.rate === undefined ? '' : ` at ${r.rate} req/s`}: a shrunk history of ${operationCount(r.violation!.operations)}, from ${r.violation!.firstRps} req/s</h3><div class="timeline">${r.violation!.svg}</div><p>Replay key: <code class="key">${esc(r.violation!.replayKey)}</code></p>`,
        )
        .join('')}`
    : '';
  return `<section id="verification"><h2>Verification</h2><p>${v.judged} answer${v.judged === 1 ? '' : 's'} judged as the suites judge them (every ${v.every}th, and every answer that was not 2xx).</p>${table(['requirement', 'statement', 'first seen', 'problem', 'verdict'], rows, true)}${evidence}${rounds}</section>`;
}

function baselineSection(doc: LoadDocument): string {
  if (!doc.baseline) return '';
  const b = doc.baseline;
  const rows = b.changes.map((c) => [
    c.scenario,
    c.metric,
    c.baseline,
    c.current,
    c.ratio === null ? 'new' : `x${c.ratio.toFixed(2)}`,
    c.regression ? '<span class="miss">REGRESSION</span>' : 'within tolerance',
  ]);
  return `<section><h2>Against the baseline</h2><p>${esc(b.file)}, tolerance ${b.tolerancePct} %</p>${table(['scenario', 'metric', 'baseline', 'now', 'ratio', 'verdict'], rows, true)}</section>`;
}

function restoreSection(doc: LoadDocument): string {
  if (doc.restores.length === 0) return '';
  const rows = doc.restores.map((r) => [
    `${r.path} ${r.name}`,
    JSON.stringify(r.original) ?? '',
    JSON.stringify(r.readBack) ?? '',
    r.restored ? '<span class="ok">restored</span>' : `<span class="miss">NOT restored</span> ${esc(r.note ?? '')}`,
  ]);
  return `<section><h2>Written attributes</h2>${table(['attribute', 'original', 'read back', 'result'], rows, true)}</section>`;
}

/**
 * Every column under a header of its own; a column empty in every row (a note no row has) is left
 * out rather than shown blank under its header.
 */
function table(head: string[], rows: (string | number)[][], trustedLastCells = false): string {
  const cell = (v: string | number, i: number): string => (trustedLastCells && i === head.length - 1 ? String(v) : esc(String(v)));
  const shown = head.map((_, i) => i).filter((i) => rows.length === 0 || rows.some((r) => String(r[i] ?? '') !== ''));
  // Figures align right, words left.
  const numeric = (i: number): boolean => rows.every((r) => /^-?[\d.,]*$/.test(String(r[i] ?? '')));
  const align = (i: number): string => (i > 0 && !numeric(i) ? ' class="text"' : '');
  return `<table><thead><tr>${shown.map((i) => `<th${align(i)}>${esc(head[i]!)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${shown.map((i) => `<td${align(i)}>${cell(r[i] ?? '', i)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

function keyValues(kv: Record<string, string>): string {
  return `<table class="kv"><tbody>${Object.entries(kv)
    .map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(v)}</td></tr>`)
    .join('')}</tbody></table>`;
}

function flatten(o: object, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined) continue;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flatten(v as object, `${prefix}${k}.`));
    else out[`${prefix}${k}`] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

function ms(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(3);
}

function signed(x: number): string {
  return `${x > 0 ? '+' : ''}${x.toFixed(1)}`;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON inside a <script> element: "</script>" and "<!--" in a value must not end it. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
