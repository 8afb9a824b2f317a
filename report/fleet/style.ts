/** What the fleet page adds to summary.html's stylesheet: status badges and the matrix. */
export const FLEET_STYLE = `
.badge.s-passed { background: var(--pass); } .badge.s-failed { background: var(--fail); }
.badge.s-unreachable, .badge.s-login-refused, .badge.s-error { background: var(--xpass); } .badge.s-interrupted, .badge.s-not-judged { background: var(--nt); }
tr.status-unreachable td, tr.status-login-refused td, tr.status-error td { background: #fff1e5; }
ul.across li { margin: .15rem 0; }
.scroll { overflow-x: auto; }
table.matrix { width: auto; }
table.matrix th, table.matrix td { padding: .15rem .3rem; }
table.matrix th.t { vertical-align: bottom; white-space: nowrap; }
table.matrix th.t span { writing-mode: vertical-rl; transform: rotate(180deg); display: inline-block; max-height: 12rem; overflow: hidden; text-overflow: ellipsis; }
table.matrix th.req { white-space: nowrap; text-align: left; }
table.matrix td.across { font-size: .85rem; min-width: 16rem; }
.cell { text-align: center; font-size: .78rem; font-weight: 700; color: #fff; min-width: 1.9rem; }
span.cell { display: inline-block; border-radius: 3px; padding: 0 .25rem; margin-left: .4rem; }
.cell.v-PASS { background: var(--pass); } .cell.v-FAIL { background: var(--fail); } .cell.v-WARN { background: var(--warn); }
.cell.v-NOT_TESTED { background: #eaeef2; color: var(--nt); } .cell.v-XFAIL { background: var(--xfail); } .cell.v-XPASS { background: var(--xpass); }
.cell.none { color: var(--nt); }
p.legend { font-size: .85rem; }
@media print { .scroll { overflow: visible; } table.matrix { font-size: .8rem; } }
`;
