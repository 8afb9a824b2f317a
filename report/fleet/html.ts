/**
 * summary.html of a fleet folder: the targets with their outcome, the requirements failing across
 * the fleet, the target × requirement matrix and the changes since a previous fleet run.
 * Self-contained like a target's summary.html: no script, nothing fetched.
 */
import { VERDICTS } from '../../client/results.js';
import { fleetNewlyFailing, fleetNewlyPassing, fleetOtherChanges } from './changes.js';
import { acrossSentence, fleetHeadline, fleetExitCode, judgedTargets, requirementAcross } from './counts.js';
import { FLEET_FILE, requirementIds, type FleetChange, type FleetChanges, type FleetMatrix, type FleetTarget } from './matrix.js';
import { PARTLY_MARK, titleOf, VERDICT_CODE } from './md.js';
import { html, Html } from '../html.js';
import { FLEET_STYLE } from './style.js';
import { pageMarginStyle, STYLE } from '../summary/style.js';
import { catalogueVersion } from '../tool-info.js';

export function fleetPage(m: FleetMatrix): string {
  const ids = requirementIds(m);
  const across = ids.map((id) => requirementAcross(m, id));
  const failing = across.filter((r) => r.counts.FAIL + r.counts.XFAIL > 0).sort((a, b) => b.counts.FAIL - a.counts.FAIL);
  const exit = fleetExitCode(m);
  const title = `Fleet conformance, ${m.startedAt}`;
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${new Html(STYLE)}${new Html(FLEET_STYLE)}${new Html(pageMarginStyle(title))}</style>
</head>
<body>
<header>
  <h1>Fleet conformance report</h1>
  <p class="subtitle">Management REST interface of baseboard management controllers, one run per target</p>
  <p class="outcome ${exit === 0 ? 'v-PASS' : 'v-FAIL'}">${fleetHeadline(m)}.</p>
</header>
<section id="identity"><h2>Fleet run</h2><dl class="identity">
  <dt>Started</dt><dd>${m.startedAt} (${(m.durationMs / 1000).toFixed(1)} s)</dd>
  <dt>Shards</dt><dd>${m.shards.map((s) => `${s.index}/${s.count}`).join(', ')}</dd>
  <dt>Tool</dt><dd>${m.tool.name} ${m.tool.version}</dd>
  <dt>Catalogue</dt><dd>${catalogueVersion(m.tool)}</dd>
  <dt>Matrix</dt><dd><a href="${FLEET_FILE}">${FLEET_FILE}</a></dd>
</dl></section>
<section id="targets"><h2>Targets</h2>
  <table class="targets"><thead><tr><th>Target</th><th>Platform</th><th>Result</th>${VERDICTS.map((v) => html`<th class="num">${v}</th>`)}<th class="num">Duration</th><th class="num">Exit</th></tr></thead>
  <tbody>${m.targets.map(targetRow)}</tbody></table>
</section>
<section id="failing"><h2>Failing across the fleet</h2>
  ${failing.length === 0 ? html`<p>No requirement fails on any machine.</p>` : html`<ul class="across">${failing.map((r) => html`<li><a href="#m-${r.id}">${r.id}</a> ${titleOf(r.id)}: ${acrossSentence(r)}</li>`)}</ul>`}
</section>
${matrixSection(m, ids)}
${changesSection(m.changes)}
<footer>${m.tool.name} ${m.tool.version} · catalogue of ${catalogueVersion(m.tool)} · started ${m.startedAt}</footer>
</body>
</html>
`.text;
}

function targetRow(t: FleetTarget): Html {
  // A run that gave no verdicts wrote no summary: its run.log says why.
  const name = t.dir ? html`<a href="${t.dir}/${t.verdicts ? 'summary.html' : 'run.log'}">${t.name}</a>` : html`${t.name}`;
  const cls = t.status.replace(' ', '-');
  return html`<tr class="status-${cls}"><td class="id">${name}<div class="section">${t.url}</div></td><td>${t.platform ?? ''}</td>
    <td class="reason"><span class="badge s-${cls}">${t.status}</span>${t.message && t.status !== 'passed' && t.status !== 'failed' ? html` ${t.message}` : ''}</td>
    ${VERDICTS.map((v) => html`<td class="num">${t.summary ? (t.summary[v] ?? 0) : ''}</td>`)}
    <td class="num">${(t.durationMs / 1000).toFixed(1)} s</td><td class="num">${t.exitCode ?? '—'}</td></tr>`;
}

function matrixSection(m: FleetMatrix, ids: string[]): Html {
  const judged = judgedTargets(m);
  const unjudged = m.targets.filter((t) => !t.verdicts);
  if (judged.length === 0) return html`<section id="matrix"><h2>Matrix</h2><p>No target gave verdicts.</p></section>`;
  // A requirement no machine tested says nothing about the fleet: counted, not shown.
  const shown = ids.filter((id) => judged.some((t) => t.verdicts![id] !== undefined && t.verdicts![id] !== 'NOT_TESTED'));
  const cell = (t: FleetTarget, id: string): Html => {
    const v = t.verdicts![id];
    if (!v) return html`<td class="cell none" title="${t.name}: not in this run">·</td>`;
    const reason = t.reasons?.[id];
    const partly = t.partly?.[id];
    return html`<td class="cell v-${v}" title="${t.name} ${id}: ${v}${partly ? `, partly judged — ${partly}` : ''}${reason ? ` — ${reason}` : ''}">${VERDICT_CODE[v]}${partly ? PARTLY_MARK : ''}</td>`;
  };
  return html`<section id="matrix"><h2>Matrix</h2>
  <p class="legend">${VERDICTS.map((v) => html`<span class="cell v-${v}">${VERDICT_CODE[v]}</span> ${v} `)} · ${PARTLY_MARK} partly judged (some tests of it not judged)${shown.length < ids.length ? html` · ${ids.length - shown.length} requirements no machine tested are left out` : ''}${unjudged.length > 0 ? html` · without verdicts: ${unjudged.map((t) => t.name).join(', ')}` : ''}</p>
  <div class="scroll"><table class="matrix">
    <thead><tr><th class="req">Requirement</th>${judged.map((t) => html`<th class="t" title="${t.platform ?? ''}"><span>${t.name}</span></th>`)}<th class="across">Across the fleet</th></tr></thead>
    <tbody>${shown.map((id) => html`<tr id="m-${id}"><th class="req" title="${titleOf(id)}">${id}</th>${judged.map((t) => cell(t, id))}<td class="across">${acrossSentence(requirementAcross(m, id))}</td></tr>`)}</tbody>
  </table></div></section>`;
}

function changesSection(c: FleetChanges | undefined): Html {
  const head = html`<h2>Changes since the previous fleet run</h2>`;
  if (!c) return html`<section id="changes">${head}<p>No previous fleet run was named (--previous).</p></section>`;
  const list = (title: string, xs: FleetChange[]): Html | '' =>
    xs.length === 0
      ? ''
      : html`<h3>${title}</h3><ul class="changes">${xs.map((x) => html`<li>${x.target} <a href="#m-${x.id}">${x.id}</a>: ${x.from} → <span class="badge v-${x.to}">${x.to}</span></li>`)}</ul>`;
  const names = (title: string, xs: string[]): Html | '' => (xs.length === 0 ? '' : html`<h3>${title}</h3><p>${xs.join(', ')}</p>`);
  const nothing = c.changes.length + c.statusChanges.length + c.added.length + c.removed.length === 0;
  return html`<section id="changes">${head}<p>Compared with the fleet run of ${c.previousStartedAt} (${c.source}).${nothing ? ' Nothing changed.' : ''}</p>
  ${list('Newly failing', fleetNewlyFailing(c))}${list('Newly passing', fleetNewlyPassing(c))}${list('Other changes', fleetOtherChanges(c))}
  ${c.statusChanges.length === 0 ? '' : html`<h3>Targets whose result changed</h3><ul class="changes">${c.statusChanges.map((s) => html`<li>${s.target}: ${s.from} → ${s.to}</li>`)}</ul>`}
  ${names('New targets', c.added)}${names('Targets no longer in the fleet', c.removed)}</section>`;
}
