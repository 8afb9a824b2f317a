/**
 * catalogue.html, written into the Allure report: every requirement of the catalogue under its own
 * anchor, so that each test's link to its catalogue entry works wherever the report is opened.
 */
import { AREAS, REQUIREMENTS } from '../catalogue/requirements.js';
import { html, Html } from './html.js';
import { STYLE } from './summary/style.js';
import { catalogueVersion, type ToolInfo } from './tool-info.js';

export const CATALOGUE_HTML = 'catalogue.html';

export function cataloguePage(tool: ToolInfo): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Requirement catalogue — ${tool.name} ${tool.version}</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
<h1>Requirement catalogue</h1>
<p class="subtitle">${tool.name} ${tool.version}; catalogue of ${catalogueVersion(tool)}. MUST: stated by the spec; SAFETY: kept by every sane target; OBSERVE: left open by the spec, recorded, never failed.</p>
${AREAS.map(
  (area) => html`<h2>${area}</h2>
<table><thead><tr><th>ID</th><th>Level</th><th>Requirement</th><th>Spec section</th></tr></thead>
<tbody>${REQUIREMENTS.filter((r) => r.area === area).map((r) => html`<tr id="${r.id}"><td class="id">${r.id}</td><td>${r.level}</td><td>${r.title}</td><td>${r.section}</td></tr>`)}</tbody></table>`,
)}
</body>
</html>
`.text;
}
