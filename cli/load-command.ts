/**
 * `load`: bounded load runs over one session, then load.json, load.html and a one-screen summary.
 * Exit 0 when every threshold holds, 1 on a miss, a regression against --baseline, a value that
 * could not be restored or an upload left behind, 2 for a usage or environment problem, 130 or 143
 * when a Ctrl-C or SIGTERM stopped it (what it had measured is written, marked interrupted).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { TargetFlags } from './target-flags.js';
import { checkLoadRanges, checkProfileTimeouts, type Ramp } from './load-limits.js';
import { profileAllows, type Profile, type WritableAttribute } from '../runner/config.js';
import { startEmbeddedTarget, type EmbeddedTarget } from '../runner/embedded.js';
import { preflight } from '../runner/preflight.js';
import { Interruption } from '../runner/signals.js';
import { UsageError } from '../runner/usage-error.js';
import { forNamespace, loadTargetProfile, type TargetProfile } from '../runner/target-profile.js';
import { resolveWritables } from '../runner/writables.js';
import type { Command } from 'commander';
import type { BmcClient } from '../client/http.js';
import { attachToAllure } from '../load/allure.js';
import { compareToBaseline, readBaseline, type Change } from '../load/baseline.js';
import { withUrlCredentials } from '../client/target-url.js';
import { environment, publicUrl, type LoadDocument, type LoadSettings } from '../load/load-document.js';
import { renderLoadHtml } from '../load/report-html.js';
import { runLoad, type LoadOutcome, type RatePlan } from '../load/run-load.js';
import { DEFAULT_MIX, DEFAULT_SCENARIOS, SCENARIOS, isHttpScenario, scenarioByName, type Scenario } from '../load/scenarios.js';
import { ProgressLine, TABLE_HEAD, capacityStepText, closingLines, scenarioLine } from '../load/terminal.js';
import { describeMiss, evaluate, loadThresholds, parseRule, type Rule } from '../load/thresholds.js';
import { prepareWrites } from '../load/write-mix.js';

export type { Ramp };

export interface LoadFlags extends TargetFlags {
  scenario?: string[];
  duration?: number;
  connections?: number;
  maxConnections?: number;
  maxRequests?: number;
  rate?: number;
  ramp?: Ramp;
  findCapacity: boolean;
  capacityP99?: number;
  maxRate?: number;
  soak?: number;
  window?: number;
  subscribers?: number;
  maxSubscribers?: number;
  maxSessions?: number;
  mix?: Record<string, number>;
  abortErrorRate: number;
  thresholds?: string;
  minRps?: number;
  maxP99?: number;
  baseline?: string;
  tolerance: number;
  profile?: Profile;
  writable: WritableAttribute[];
  eventTimeout?: number;
  fault: string[];
  out: string;
  targetProfile?: string;
}

/**
 * A target profile fills what no flag gave: the namespace, the writables ({ns} filled in), the
 * request timeout, the event timeout, and its concurrency as the cap on connections.
 */
function applyProfile(flags: LoadFlags, p: TargetProfile, cmd: Command | undefined): void {
  if (cmd?.getOptionValueSource('namespace') === 'default' && p.namespace) flags.namespace = p.namespace;
  if (flags.writable.length === 0) flags.writable = forNamespace(p, flags.namespace).writable;
  flags.timeout ??= p.timeouts.requestMs;
  flags.eventTimeout ??= p.timeouts.eventMs;
  flags.maxConnections ??= p.concurrency;
}

/** Gentle on a real BMC (a small ARM computer), generous on the embedded simulator. */
const DEFAULTS = {
  target: {
    connections: 2,
    durationS: 5,
    maxConnections: 16,
    requestsPerSecondCap: 1_000,
    timeoutMs: 120_000,
    eventTimeoutMs: 10_000,
    subscribers: 5,
    maxSubscribers: 64,
    maxSessions: 32,
    eventWriteRate: 2,
    startRate: 5,
    maxRate: 100,
  },
  embedded: {
    connections: 10,
    durationS: 3,
    maxConnections: 256,
    requestsPerSecondCap: 50_000,
    timeoutMs: 15_000,
    eventTimeoutMs: 3_000,
    subscribers: 20,
    maxSubscribers: 256,
    maxSessions: 64,
    eventWriteRate: 20,
    startRate: 50,
    maxRate: 20_000,
  },
};
const CAPACITY_P99_MS = 250;

export async function loadCommand(flags: LoadFlags, cmd?: Command): Promise<void> {
  // From here on the first Ctrl-C or SIGTERM stops the load and lets it put back what it wrote.
  const progress = new ProgressLine();
  const interruption = new Interruption((line) => {
    progress.clear();
    process.stdout.write(`${line}\n`);
  });
  try {
    await measure(flags, cmd, interruption, progress);
  } finally {
    interruption.dispose();
  }
}

async function measure(flags: LoadFlags, cmd: Command | undefined, interruption: Interruption, progress: ProgressLine): Promise<void> {
  if (flags.target !== undefined && flags.target.trim() === '') flags.target = undefined;
  flags = withUrlCredentials(flags);
  checkLoadRanges(flags);
  if (flags.targetProfile) {
    const p = await loadTargetProfile(flags.targetProfile);
    checkProfileTimeouts(p.file, p.timeouts);
    applyProfile(flags, p, cmd);
  }
  const scenarios = chooseScenarios(flags);
  const plan = ratePlanShape(flags);
  const rules = await thresholdRules(flags);
  const baseline = flags.baseline ? { file: resolve(flags.baseline), results: await readBaseline(flags.baseline) } : undefined;
  if (flags.target && flags.fault.length > 0)
    throw new UsageError('--fault applies to the embedded simulator only; drop --target or --fault.');

  const onSimulator = !flags.target;
  const d = onSimulator ? DEFAULTS.embedded : DEFAULTS.target;
  const profile: Profile = flags.profile ?? (onSimulator ? 'destructive' : 'safe');
  for (const s of scenarios) {
    if (!profileAllows(profile, s.profile))
      throw new UsageError(`The scenario ${s.name} needs --profile ${s.profile} (or above); the profile is ${profile}.`);
  }
  const notes: string[] = [];
  const maxConnections = flags.maxConnections ?? d.maxConnections;
  const connections = capped('connections', flags.connections ?? d.connections, maxConnections, '--max-connections', notes);
  const maxSubscribers = flags.maxSubscribers ?? d.maxSubscribers;
  // Only the events scenario has subscribers: a cap on them matters to no other run.
  const subscribers = scenarios.some((s) => s.kind === 'events')
    ? capped('subscribers', flags.subscribers ?? d.subscribers, maxSubscribers, '--max-subscribers', notes)
    : Math.min(flags.subscribers ?? d.subscribers, maxSubscribers);
  const durationS = flags.soak ?? flags.duration ?? d.durationS;
  const windowS = flags.soak ? (flags.window ?? Math.min(60, Math.max(1, Math.floor(flags.soak / 10)))) : undefined;
  const maxRequests = flags.maxRequests ?? Math.ceil(durationS * d.requestsPerSecondCap);
  const timeoutMs = flags.timeout ?? d.timeoutMs;
  const eventTimeoutMs = flags.eventTimeout ?? d.eventTimeoutMs;
  if (plan === 'capacity' && flags.rate !== undefined && flags.rate > (flags.maxRate ?? d.maxRate))
    throw new UsageError(
      `--rate ${flags.rate} (where the capacity search starts) is above --max-rate ${flags.maxRate ?? d.maxRate}${flags.maxRate === undefined ? ' (its default here)' : ''}: lower --rate or raise --max-rate.`,
    );
  const ratePlan: RatePlan =
    plan === 'capacity'
      ? {
          kind: 'capacity',
          startRate: flags.rate ?? d.startRate,
          maxRate: flags.maxRate ?? d.maxRate,
          p99BoundMs: flags.capacityP99 ?? CAPACITY_P99_MS,
        }
      : plan === 'ramp'
        ? { kind: 'ramp', ...flags.ramp! }
        : plan === 'open'
          ? { kind: 'open', rate: flags.rate! }
          : { kind: 'closed' };

  const startedAt = new Date();
  const env = environment();
  const embedded = onSimulator ? await startEmbedded(flags) : undefined;
  try {
    const target = embedded?.url ?? flags.target!.replace(/\/+$/, '');
    const { client } = await preflight({
      target,
      user: flags.user,
      password: flags.password,
      insecure: flags.insecure || Boolean(embedded),
      timeoutMs,
    });
    const interrupt = new AbortController();
    interruption.onStop(() => interrupt.abort());
    let outcome: LoadOutcome;
    const writable = flags.writable.length > 0 ? flags.writable : (embedded?.writable ?? []);
    try {
      await checkPaths(client, scenarios, flags.mix ?? DEFAULT_MIX, flags.namespace);
      const needWrites =
        scenarios.some((s) => s.kind === 'write-mix' || s.kind === 'events') || (plan === 'capacity' && profileAllows(profile, 'safe'));
      const resolved = needWrites ? await resolveWritables(client, writable, flags.namespace) : { writable, unmatched: [] };
      for (const w of resolved.unmatched) notes.push(`not written: ${w} matches nothing on this target`);
      const prepared = needWrites ? await prepareWrites(client, resolved.writable) : { cycles: [], skipped: [] };
      for (const s of prepared.skipped) notes.push(`not written: ${s}`);
      const writing = scenarios.filter((s) => s.kind === 'write-mix' || s.kind === 'events');
      if (writing.length > 0 && prepared.cycles.length === 0) {
        throw new UsageError(
          `The scenario ${writing[0]!.name} needs an attribute it can write: name one with --writable PATH:ATTR[=V1|V2]${prepared.skipped.length ? ` (${prepared.skipped.join('; ')})` : ''}.`,
        );
      }
      process.stdout.write(
        `bmc-conformance load: ${publicUrl(target)}${embedded ? ' (embedded simulator)' : ''}, ${describePlan(ratePlan, connections)}, ${durationS} s per scenario${windowS ? ` in ${windowS} s windows` : ''}, at most ${maxRequests} requests each\n${TABLE_HEAD}\n`,
      );
      outcome = await runLoad({
        client,
        baseUrl: target,
        insecure: flags.insecure || Boolean(embedded),
        namespace: flags.namespace,
        user: flags.user,
        password: flags.password,
        profile,
        scenarios,
        mix: flags.mix ?? DEFAULT_MIX,
        cycles: prepared.cycles,
        plan: ratePlan,
        connections,
        durationS,
        maxRequests,
        timeoutMs,
        abortErrorRate: flags.abortErrorRate / 100,
        windowS,
        subscribers,
        eventWriteRate: plan === 'open' ? flags.rate! : d.eventWriteRate,
        eventTimeoutMs,
        maxSessions: flags.maxSessions ?? d.maxSessions,
        maxSubscribers,
        signal: interrupt.signal,
        onProgress: (name, p, plannedS) => progress.update(name, p, plannedS),
        onCapacityStep: (name, step) => progress.capacityStep(name, capacityStepText(step)),
        onScenario: (r) => {
          progress.clear();
          process.stdout.write(`${scenarioLine(r)}\n`);
        },
      });
    } finally {
      progress.clear();
      await client.logout().catch(() => undefined);
      await client.close();
    }
    notes.push(...outcome.notes);

    const thresholds = evaluate(rules, outcome.results, { sessions: outcome.sessions, subscribers: outcome.subscribers });
    const changes: Change[] = baseline ? compareToBaseline(outcome.results, baseline.results, flags.tolerance) : [];
    const failures = [
      ...thresholds.filter((t) => !t.pass).map(describeMiss),
      ...changes
        .filter((c) => c.regression)
        .map((c) => `${c.scenario}: ${c.metric} regressed against the baseline (${c.baseline} -> ${c.current})`),
      ...outcome.restores
        .filter((r) => !r.restored)
        .map((r) => `${r.path} ${r.name} was not restored to ${JSON.stringify(r.original)}${r.note ? ` (${r.note})` : ''}`),
      ...outcome.results.flatMap((r) =>
        (r.uploads?.leftOver ?? []).map((v) => `${r.scenario}: the uploaded version ${v} could not be deleted`),
      ),
      ...outcome.results.filter((r) => r.stoppedBy === 'error-rate').map((r) => `${r.scenario}: ${r.stopNote}`),
    ];
    const { signal, at } = interruption;
    const interrupted = signal && at ? { signal, at: at.toISOString() } : undefined;
    const settings: LoadSettings = {
      profile,
      mode: ratePlan.kind,
      scenarios: scenarios.map((s) => s.name),
      connections,
      maxConnections,
      durationS,
      maxRequests,
      timeoutMs,
      abortErrorRatePct: flags.abortErrorRate,
      ...(ratePlan.kind === 'open' && { rate: ratePlan.rate }),
      ...(ratePlan.kind === 'ramp' && { ramp: `${ratePlan.from}:${ratePlan.to}:${ratePlan.steps}` }),
      ...(ratePlan.kind === 'capacity' && {
        capacity: { startRate: ratePlan.startRate, maxRate: ratePlan.maxRate, p99BoundMs: ratePlan.p99BoundMs },
      }),
      ...(flags.soak && { soakS: flags.soak, windowS }),
      ...(scenarios.some((s) => s.kind === 'events') && { subscribers }),
      ...(scenarios.some((s) => s.kind === 'read-mix') && { mix: { ...(flags.mix ?? DEFAULT_MIX) } }),
      writable: writable.map((w) => `${w.path}:${w.name}`),
    };
    const doc: LoadDocument = {
      tool: 'bmc-conformance load',
      format: 1,
      target: publicUrl(target),
      embedded: Boolean(embedded),
      faults: flags.fault,
      startedAt: startedAt.toISOString(),
      durationS: (Date.now() - startedAt.getTime()) / 1000,
      environment: env,
      settings,
      results: outcome.results,
      capacity: {
        ...(outcome.sessions && { sessions: outcome.sessions }),
        ...(outcome.subscribers && { subscribers: outcome.subscribers }),
      },
      thresholds,
      ...(baseline && { baseline: { file: baseline.file, tolerancePct: flags.tolerance, changes } }),
      restores: outcome.restores,
      notes,
      ...(interrupted && { interrupted }),
      // Cut short, the figures are partial: they neither pass nor fail the target.
      verdict: interrupted ? 'interrupted' : failures.length > 0 ? 'fail' : 'pass',
      failures,
    };
    await writeOutputs(flags.out, doc);
    process.exitCode = interruption.exitCode ?? (failures.length > 0 ? 1 : 0);
  } finally {
    await embedded?.stop();
  }
}

async function writeOutputs(out: string, doc: LoadDocument): Promise<void> {
  const dir = resolve(out);
  await mkdir(dir, { recursive: true });
  const json = join(dir, 'load.json');
  const html = join(dir, 'load.html');
  await writeFile(json, `${JSON.stringify(doc, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`);
  await writeFile(html, await renderLoadHtml(doc));
  const attached = await attachToAllure(dir, doc, { json, html });
  for (const line of closingLines(doc)) process.stdout.write(`${line}\n`);
  process.stdout.write(`results: ${json}\nreport:  ${html}\n`);
  if (attached > 0)
    process.stdout.write(
      `allure:  ${attached} load test(s) added to ${join(dir, 'allure-results')} (render with "bmc-conformance report --in ${out}")\n`,
    );
}

function chooseScenarios(flags: LoadFlags): Scenario[] {
  const names = flags.scenario ?? (flags.soak ? ['read-mix'] : DEFAULT_SCENARIOS);
  const scenarios = names.map((n) => scenarioByName(n)!);
  const rateModes = [flags.rate !== undefined && !flags.findCapacity, flags.ramp !== undefined, flags.findCapacity].filter(Boolean).length;
  if (rateModes > 1)
    throw new UsageError('Choose one of --rate, --ramp and --find-capacity (--rate with --find-capacity sets where the search starts).');
  if (flags.soak && (flags.ramp || flags.findCapacity))
    throw new UsageError('--soak runs at a fixed load: use it with --connections or --rate, not --ramp or --find-capacity.');
  if (flags.window && !flags.soak) throw new UsageError('--window needs --soak.');
  if (flags.soak && flags.window && flags.soak < 2 * flags.window)
    throw new UsageError('--soak must last at least two --window lengths, so a first and a last window exist.');
  if (flags.mix && !names.includes('read-mix'))
    throw new UsageError('--mix sets the weights of the read-mix scenario; add --scenario read-mix.');
  if ((flags.ramp || flags.findCapacity) && !scenarios.some(isHttpScenario))
    throw new UsageError('--ramp and --find-capacity need an HTTP scenario (not only events or upload).');
  return scenarios;
}

function ratePlanShape(flags: LoadFlags): RatePlan['kind'] {
  if (flags.findCapacity) return 'capacity';
  if (flags.ramp) return 'ramp';
  return flags.rate !== undefined ? 'open' : 'closed';
}

async function thresholdRules(flags: LoadFlags): Promise<Rule[]> {
  const rules = flags.thresholds
    ? await loadThresholds(
        flags.thresholds,
        SCENARIOS.map((s) => s.name),
      )
    : [];
  if (flags.minRps !== undefined) rules.push(parseRule('*', `rps >= ${flags.minRps}`));
  if (flags.maxP99 !== undefined) rules.push(parseRule('*', `p99 <= ${flags.maxP99}ms`));
  return rules;
}

async function startEmbedded(flags: LoadFlags): Promise<EmbeddedTarget> {
  try {
    return await startEmbeddedTarget({
      namespace: flags.namespace,
      user: flags.user,
      password: flags.password,
      faults: flags.fault,
      tftp: false,
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/unknown fault/.test(message))
      throw new UsageError(
        `Unknown fault ${flags.fault.join(', ')}; see simulate --list-faults (and slow-requests, slow-serial, slow-stalls, slow-leak).`,
      );
    throw err;
  }
}

/** A scenario whose object does not exist on this target would only measure 404s: say so up front. */
async function checkPaths(client: BmcClient, scenarios: Scenario[], mix: Readonly<Record<string, number>>, ns: string): Promise<void> {
  const reads = new Set<Scenario>();
  for (const s of scenarios) {
    if (s.kind === 'read') reads.add(s);
    if (s.kind === 'read-mix') for (const n of Object.keys(mix)) reads.add(scenarioByName(n)!);
  }
  for (const s of reads) {
    const path = s.path!(ns);
    const res = await client.get(path);
    if (res.status !== 200) throw new UsageError(`The scenario ${s.name} reads ${path}, which answered ${res.statusLine} on this target.`);
  }
}

function capped(what: string, asked: number, max: number, flag: string, notes: string[]): number {
  if (asked <= max) return asked;
  notes.push(`${asked} ${what} asked, capped at ${max} by ${flag}`);
  return max;
}

function describePlan(p: RatePlan, connections: number): string {
  switch (p.kind) {
    case 'closed':
      return `closed loop, ${connections} connections`;
    case 'open':
      return `open loop at ${p.rate} requests/s (${connections} connections)`;
    case 'ramp':
      return `ramp from ${p.from} to ${p.to} requests/s in ${p.steps} steps (${connections} connections)`;
    case 'capacity':
      return `capacity search from ${p.startRate} up to ${p.maxRate} requests/s, p99 bound ${p.p99BoundMs} ms (${connections} connections)`;
  }
}

// --- Option parsers (each rejects a bad value with one plain sentence) ---------------------------
