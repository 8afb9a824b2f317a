/** What a person watching the run sees: a progress line while it runs, one screen of figures at the end. */
import { describeChange } from './baseline.js';
import type { LoadDocument } from './load-document.js';
import type { Progress } from './recorder.js';
import type { ScenarioReport } from './report/model.js';
import type { CapacityResult } from './capacity/capacity.js';
import type { CapacityProgress } from './run-load.js';
import { describeMiss, isDefaultThreshold } from './thresholds.js';

/** Non-terminals (CI logs) get a line every this many seconds instead of a line rewritten in place. */
const LOG_EVERY_S = 10;

type Out = { write(s: string): boolean; isTTY?: boolean; columns?: number };

/** A CI job's log keeps every byte: a line rewritten in place would pile up there, even on a pseudo-terminal. */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

export class ProgressLine {
  private shown = false;
  /** The capacity search's step, shown before the figures of the second. */
  private step?: { scenario: string; text: string };
  private readonly live: boolean;

  constructor(
    private readonly out: Out = process.stdout,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.live = Boolean(out.isTTY) && !isCi(env);
  }

  update(scenario: string, p: Progress, plannedS: number): void {
    const figures = `${p.elapsedS.toFixed(0).padStart(4)}/${plannedS} s  ${p.lastSecondRps.toFixed(0).padStart(6)} req/s  p99 ${fmtMs(p.p99).padStart(8)} ms  ${p.requests} requests, ${p.failed} failed`;
    const step = this.step?.scenario === scenario ? `${this.step.text} · ` : '';
    if (this.live) this.show(`  ${scenario.padEnd(18)} ${step}${figures}`);
    else if (Math.round(p.elapsedS) % LOG_EVERY_S === 0) this.out.write(`  ${scenario.padEnd(18)} ${figures}\n`);
  }

  /** A capacity step begins: on the status line in a terminal, as a line of its own in a log. */
  capacityStep(scenario: string, text: string): void {
    this.step = { scenario, text };
    if (this.live) this.show(`  ${scenario.padEnd(18)} ${text}`);
    else this.out.write(`  ${scenario}: ${text}\n`);
  }

  private show(text: string): void {
    this.out.write(`\r${text.slice(0, (this.out.columns || 120) - 1)}\x1b[K`);
    this.shown = true;
  }

  /** Clears the line before other output. */
  clear(): void {
    if (this.shown) this.out.write('\r\x1b[K');
    this.shown = false;
  }
}

/** "capacity step 3 of ≤8: 400 req/s, ~52 s left at most" */
export function capacityStepText(s: CapacityProgress): string {
  return `capacity step ${s.index} of ≤${s.bound}: ${s.rate} req/s, ~${fmtS(s.leftS)} left at most`;
}

function fmtS(s: number): string {
  return s < 120 ? `${Math.ceil(s)} s` : `${Math.ceil(s / 60)} min`;
}

export function scenarioLine(r: ScenarioReport): string {
  const l = r.latency;
  const mode =
    r.mode === 'closed'
      ? `${r.connections} conn`
      : r.mode === 'capacity'
        ? `cap ${r.capacity?.sustainableRps}/s`
        : `${r.mode}${r.rate ? ` ${r.rate}/s` : ''}`;
  return `  ${r.scenario.padEnd(18)} ${mode.padEnd(13)} ${r.requestsPerSecond.toFixed(1).padStart(8)} ${fmtMs(l.p50).padStart(8)} ${fmtMs(l.p90).padStart(8)} ${fmtMs(l.p99).padStart(8)} ${fmtMs(l.p999).padStart(8)} ${fmtMs(l.max).padStart(8)} ${String(r.failed).padStart(7)} ${(r.bytesPerSecond / 1024).toFixed(0).padStart(7)}${r.stoppedBy === 'request-cap' ? '  cut short by the request cap (below)' : ''}`;
}

export const TABLE_HEAD = `  ${'scenario'.padEnd(18)} ${'mode'.padEnd(13)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p90 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'p99.9'.padStart(8)} ${'max ms'.padStart(8)} ${'failed'.padStart(7)} ${'KB/s'.padStart(7)}`;

/** What each sustained step kept: "p99 <= 250 ms, no failure" or "conformant, no failure". */
export function capacityCriterionText(c: CapacityResult): string {
  const p99 = c.p99BoundMs === undefined ? '' : `p99 <= ${c.p99BoundMs} ms, `;
  return c.criterion === 'conformant' ? `conformant, ${p99}no failure` : `${p99}no failure`;
}

/** ": EP-8 broken from 200 req/s on", when a step of the search broke a requirement. */
export function brokenFromText(c: CapacityResult): string {
  return c.brokenFrom ? `: ${c.brokenFrom.requirement} broken from ${c.brokenFrom.rps} req/s on` : '';
}

/** The lines after the table: capacities, events, drift, thresholds, baseline, restores, verdict. */
export function closingLines(doc: LoadDocument): string[] {
  const lines: string[] = [];
  for (const r of doc.results) {
    if (r.stopNote) lines.push(`  ${r.scenario}: ${r.stopNote}`);
    if (r.capacity) {
      lines.push(
        `  ${r.scenario}: sustains ${r.capacity.sustainableRps} requests/s (${capacityCriterionText(r.capacity)}; ${r.capacity.steps.length} steps, limited by ${r.capacity.limitedBy}${brokenFromText(r.capacity)})`,
      );
      const cut = r.capacity.steps.filter((s) => s.cutShort);
      if (cut.length > 0)
        lines.push(
          `  ${r.scenario}: ${cut.length} of ${r.capacity.steps.length} capacity steps cut short by the request cap (--max-requests), from ${cut[0]!.rate} req/s: ${cut[0]!.cutShort}`,
        );
    }
    if (r.events) {
      const e = r.events;
      lines.push(
        `  ${r.scenario}: ${e.subscribers} subscribers, ${e.writes} writes, delivery p50 ${fmtMs(e.latency.p50)} ms p99 ${fmtMs(e.latency.p99)} ms max ${fmtMs(e.latency.max)} ms; ${e.delivered}/${e.expected} delivered, ${e.lost} lost, ${e.duplicated} duplicated, ${e.unexpected} unexpected`,
      );
    }
    if (r.uploads)
      lines.push(
        `  ${r.scenario}: ${r.uploads.uploaded} uploaded, ${r.uploads.deleted} deleted again${r.uploads.leftOver.length ? `, LEFT OVER: ${r.uploads.leftOver.join(', ')}` : ''}`,
      );
    if (r.drift)
      lines.push(
        `  ${r.scenario}: drift first→last window: p50 ${signed(r.drift.p50ChangePct)} %, p99 ${signed(r.drift.p99ChangePct)} %, error rate ${signed(r.drift.errorRateChangePoints)} points`,
      );
  }
  const { sessions, subscribers } = doc.capacity;
  if (subscribers)
    lines.push(
      `  WebSocket subscribers held at once: ${subscribers.subscribers}${subscribers.stoppedBy === 'bound' ? ' (the bound)' : ''}; ${subscribers.detail}${subscribers.delivering === undefined ? '' : `; ${subscribers.delivering} delivering`}`,
    );
  if (sessions)
    lines.push(
      `  sessions held at once: ${sessions.sessions}${sessions.stoppedBy === 'bound' ? ' (the bound)' : ''}; ${sessions.detail}; ${sessions.loggedOut} logged out`,
    );
  for (const n of doc.notes) lines.push(`  note: ${n}`);
  for (const c of doc.baseline?.changes ?? []) if (c.regression) lines.push(`  vs baseline ${describeChange(c)}`);
  for (const r of doc.restores)
    lines.push(
      `  ${r.restored ? 'restored' : 'NOT RESTORED'} ${r.path} ${r.name} = ${JSON.stringify(r.original)}${r.note ? ` (${r.note})` : ''}`,
    );
  for (const t of doc.thresholds) if (!t.pass) lines.push(`${doc.interrupted ? 'partial: ' : 'FAIL '}${describeMiss(t)}`);
  const v = doc.verification;
  if (v) {
    const reg = v.register;
    const lin = reg?.rounds.filter((r) => r.verdict === 'linearizable').length;
    const kinds = [...new Set(reg?.rounds.flatMap((r) => (r.streams ?? []).filter((x) => !x.closed).map((x) => x.kind)))];
    lines.push(
      `  verify: ${v.judged} answers judged (every ${v.every}th and every non-2xx)${reg ? `; register ${reg.path} ${reg.name}, ${reg.sessions} sessions: ${lin}/${reg.rounds.length} histories linearizable${kinds.length ? `; subscribers filtered on ${kinds.join(', ')}` : ''}` : ''}`,
    );
    for (const r of v.requirements)
      if (r.verdict === 'FAIL') lines.push(`FAIL ${r.id} under load from ${r.firstRps} req/s (${r.scenario}): ${r.problem}`);
    for (const r of reg?.rounds ?? [])
      if (r.violation)
        lines.push(`  replay key (${r.scenario}${r.rate === undefined ? '' : ` at ${r.rate} req/s`}): ${r.violation.replayKey}`);
  }
  lines.push(verdictLine(doc));
  return lines;
}

/** The last line: the verdict, and what it rests on. */
export function verdictLine(doc: LoadDocument): string {
  if (doc.interrupted) {
    const cut = doc.results.filter((r) => r.stoppedBy === 'interrupted').length;
    return `INTERRUPTED (${doc.interrupted.signal}): partial results of ${doc.results.length} of ${doc.settings.scenarios.length} scenario(s)${cut ? `, ${cut} cut short` : ''}${doc.failures.length ? `; ${doc.failures.length} problem(s)` : ''}`;
  }
  if (doc.verdict === 'fail') return `FAIL: ${doc.failures.length} problem(s)`;
  const given = doc.thresholds.filter((t) => !isDefaultThreshold(t));
  const met = given.filter((t) => t.pass && !t.note).length;
  const basis = given.length > 0 ? `${met} threshold(s) met` : 'no request failed (no thresholds given)';
  return `PASS: ${basis}${doc.baseline ? ', no regression against the baseline' : ''}`;
}

function fmtMs(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(3);
}

function signed(x: number): string {
  return `${x > 0 ? '+' : ''}${x.toFixed(1)}`;
}
