/** The stylesheet of summary.html: readable on screen, and on A4 paper with its colours kept. */
export const STYLE = `
:root { --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --nt: #6e7781; --xfail: #8250df; --xpass: #bc4c00; --line: #d0d7de; }
* { box-sizing: border-box; }
html { font-size: 14px; }
body { font: 1rem/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1f2328; margin: 2rem auto; max-width: 72rem; padding: 0 1.5rem; }
h1 { font-size: 2rem; margin: 0; }
h2 { font-size: 1.25rem; border-bottom: 2px solid var(--line); padding-bottom: .2rem; margin-top: 2rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
a { color: #0969da; }
.subtitle { margin: .2rem 0 1rem; color: #57606a; }
.outcome { font-size: 1.15rem; font-weight: 600; padding: .6rem .9rem; border-radius: 6px; border-left: 6px solid; background: #f6f8fa; }
.outcome.v-FAIL { border-color: var(--fail); } .outcome.v-PASS { border-color: var(--pass); } .outcome.v-NOT_TESTED { border-color: var(--nt); }
.notice { padding: .5rem .9rem; border-radius: 6px; border-left: 6px solid var(--warn); background: #fff8e1; }
dl.identity { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1.2rem; margin: 0; }
dl.identity dt { font-weight: 600; } dl.identity dd { margin: 0; overflow-wrap: anywhere; }
.counts { display: flex; gap: .6rem; flex-wrap: wrap; }
.count { border: 1px solid var(--line); border-top: 5px solid; border-radius: 6px; padding: .4rem .6rem; flex: 1 1 0; min-width: 6rem; text-align: center; }
.count .n { display: block; font-size: 1.6rem; font-weight: 700; } .count .label { font-size: .8rem; letter-spacing: .03em; }
dl.legend { display: grid; grid-template-columns: max-content 1fr; gap: 0 1rem; font-size: .85rem; color: #57606a; margin-top: .8rem; }
dl.legend dt { font-weight: 600; } dl.legend dd { margin: 0; }
table { border-collapse: collapse; width: 100%; margin: .4rem 0; }
table.requirements { table-layout: fixed; }
col.c-id { width: 7.5%; } col.c-level { width: 8.5%; } col.c-title { width: 34.5%; } col.c-verdict { width: 10.5%; } col.c-reason { width: 30%; } col.c-evidence { width: 9%; }
th, td { border: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
thead th { background: #f6f8fa; }
td.id { white-space: nowrap; font-weight: 600; }
td.reason, td.value, td.key, .reason { overflow-wrap: anywhere; }
table.observations { table-layout: fixed; }
table.observations col.c-id { width: 11%; } table.observations col.c-key { width: 32%; } table.observations col.c-value { width: 57%; }
.print-only { display: none; }
.more { font-size: .85rem; color: #57606a; font-style: italic; }
td.value { font: .85rem/1.35 ui-monospace, "DejaVu Sans Mono", monospace; }
dl.members { margin: 0; display: grid; grid-template-columns: fit-content(65%) minmax(4rem, 1fr); gap: 0 .75rem; }
dl.members dt { font-weight: 600; overflow-wrap: anywhere; } dl.members dd { margin: 0; overflow-wrap: anywhere; }
.muted { color: #666; font-size: .85em; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.section, .expected { font-size: .8rem; color: #57606a; }
.expected { color: var(--xfail); }
.partly { font-size: .8rem; color: #57606a; } ul.partly { margin: .2rem 0 0; padding-left: 1.1rem; }
.badge { display: inline-block; padding: 0 .4rem; border-radius: 4px; color: #fff; font-size: .78rem; font-weight: 700; white-space: nowrap; }
.v-PASS { border-color: var(--pass); } .badge.v-PASS { background: var(--pass); }
.v-FAIL { border-color: var(--fail); } .badge.v-FAIL { background: var(--fail); }
.v-WARN { border-color: var(--warn); } .badge.v-WARN { background: var(--warn); }
.v-NOT_TESTED { border-color: var(--nt); } .badge.v-NOT_TESTED { background: var(--nt); }
.v-XFAIL { border-color: var(--xfail); } .badge.v-XFAIL { background: var(--xfail); }
.v-XPASS { border-color: var(--xpass); } .badge.v-XPASS { background: var(--xpass); }
.count.v-PASS .n { color: var(--pass); } .count.v-FAIL .n { color: var(--fail); } .count.v-WARN .n { color: var(--warn); }
.count.v-NOT_TESTED .n { color: var(--nt); } .count.v-XFAIL .n { color: var(--xfail); } .count.v-XPASS .n { color: var(--xpass); }
tr.row-FAIL td { background: #ffebe9; } tr.row-XPASS td { background: #fff1e5; } tr.row-WARN td { background: #fff8c5; }
ul.changes { margin: .2rem 0; }
svg .bar { fill: #0969da; }
table.signatures th { width: 9rem; } table.signatures td { height: 2.6rem; }
.annex .test { margin: .4rem 0 .8rem 1rem; } .annex .test p { margin: .2rem 0; }
.exchange { display: grid; grid-template-columns: 1fr 1fr; gap: .4rem; margin: .3rem 0; }
.exchange figure { margin: 0; min-width: 0; } .exchange figcaption { font-size: .75rem; font-weight: 600; color: #57606a; }
pre { margin: 0; padding: .4rem .5rem; background: #f6f8fa; border: 1px solid var(--line); border-radius: 4px; font: .82rem/1.35 ui-monospace, "DejaVu Sans Mono", monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
footer { margin-top: 2rem; font-size: .8rem; color: #57606a; border-top: 1px solid var(--line); padding-top: .4rem; }
@media (max-width: 50rem) { .exchange { grid-template-columns: 1fr; } }
@media print {
  @page { size: A4; margin: 14mm 12mm; }
  html { font-size: 10px; }
  body { margin: 0; max-width: none; padding: 0; }
  .count { min-width: 0; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  a { color: inherit; text-decoration: none; }
  tr, .count, .exchange figure, .test p { break-inside: avoid; }
  figcaption, details > summary { break-after: avoid; }
  thead { display: table-header-group; }
  h2, h3 { break-after: avoid; }
  .annex { break-before: page; }
  footer { display: none; }
  .exchange { grid-template-columns: 2fr 3fr; }
  pre { font-size: .85rem; }
  /* On paper every annex figure is open, and what the annex prints of it is bounded (PRINTED in html.ts). */
  /* A FAIL's reason is what paper is read for: its column is the widest. */
  col.c-id { width: 7%; } col.c-level { width: 8%; } col.c-title { width: 31%; } col.c-verdict { width: 10%; } col.c-reason { width: 37%; } col.c-evidence { width: 7%; }
  .print-only { display: revert; }
  .no-print { display: none !important; }
  details::details-content { content-visibility: visible; display: block; }
  details > summary { list-style: none; font-size: .8rem; font-weight: 600; color: #57606a; margin-top: .3rem; }
  details > summary::-webkit-details-marker { display: none; }
}
`;

/** Every printed page names the run and counts pages: a page separated from the rest still says what it belongs to. */
export function pageMarginStyle(footer: string): string {
  const text = `"${footer
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/[\r\n\f]/g, ' ')
    .replace(/</g, '\\3c ')}"`;
  const box = 'font: 8pt system-ui, "DejaVu Sans", sans-serif; color: #57606a;';
  return `@page { @bottom-left { content: ${text}; ${box} } @bottom-right { content: "page " counter(page) " of " counter(pages); ${box} } }`;
}
