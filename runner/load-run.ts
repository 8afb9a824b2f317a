/**
 * `load`'s job: bounded load runs over one session, then load.json, load.html and the Allure
 * results. Its settings come from settings.ts (flags > target profile > defaults of the kind of
 * target); the command line (cli/load-command.ts) parses the flags and prints what this reports.
 * Exit 0 when every threshold holds, 1 on a miss, a regression against the baseline, a value that
 * could not be restored or an upload left behind, 130 or 143 when a signal stopped it.
 */
import { withoutTrailingSlashes } from '../client/trim-end.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { profileAllows, type Profile, type WritableAttribute } from './config.js';
import type { EmbeddedTarget } from './embedded.js';
import { preflight } from './preflight.js';
import type { Interruption } from './signals.js';
import { UsageError } from '../client/usage-error.js';
import { forNamespace, type TargetProfile } from './target-profile.js';
import { resolveWritables } from './writables.js';
import { firstNamed, layered, LOAD_DEFAULTS, resolveSettings, targetKind, type TargetFlags } from './settings.js';
import type { BmcClient } from '../client/http.js';
import { attachToAllure } from '../load/allure.js';
import { compareToBaseline, readBaseline, type Change } from '../load/baseline.js';
import { environment, publicUrl, type LoadDocument, type LoadSettings } from '../load/load-document.js';
import { renderLoadHtml } from '../load/report/html.js';
import type { Progress } from '../load/recorder.js';
import type { ScenarioReport } from '../load/report/model.js';
import type { CapacityProgress, LoadOutcome, RatePlan } from '../load/run-load.js';
import { DEFAULT_MIX, DEFAULT_SCENARIOS, SCENARIOS, isHttpScenario, scenarioByName, type Scenario } from '../load/scenarios.js';
import { evaluate, describeMiss, loadThresholds, parseRule, type Rule } from '../load/thresholds.js';
import { prepareWrites } from '../load/write-mix.js';
import { DEFAULT_VERIFY_EVERY } from '../load/verify/answers.js';
import { DEFAULT_VERIFY_SESSIONS } from '../load/verify/register.js';
import { verificationOf, verificationFailures } from '../load/verify/verdicts.js';
import type { DialectName } from '../simulator/index.js';
import type { CapacityCriterion } from '../load/capacity/capacity.js';
import type { ReadEndpoint } from '../load/verify/history.js';
import { messageOf } from '../client/errors.js';

/**
 * A load's options, as the command line gives them (the target profile read already); `namespace`
 * is resolved already: a flag wins over the profile's (settings.ts `resolveNamespace`).
 */
export interface LoadOptions extends TargetFlags {
  scenario?: string[];
  duration?: number;
  connections?: number;
  maxConnections?: number;
  maxRequests?: number;
  rate?: number;
  ramp?: { from: number; to: number; steps: number };
  findCapacity: boolean;
  /** What a capacity step must keep: p99 under its bound (default), or conformance (implies verify). */
  capacityCriterion?: CapacityCriterion;
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
  /** Embedded simulator only: behave as this field server. */
  dialect?: DialectName;
  /** Judge the load's answers, a register's linearizability and its events while it runs. */
  verify?: boolean;
  verifyEvery?: number;
  verifySessions?: number;
  /** Endpoints the register is read back on (default all: attr, object, enumerate). */
  verifyReads?: ReadEndpoint[];
  out: string;
  targetProfile?: TargetProfile;
}

/** What the load says as it goes: the command line prints it. */
export interface LoadView {
  start(header: LoadHeader): void;
  progress(scenario: string, p: Progress, plannedS: number): void;
  capacityStep(scenario: string, step: CapacityProgress): void;
  scenario(report: ScenarioReport): void;
  /** The scenarios are over (or failed): no progress shows any more. */
  end(): void;
}

export interface LoadHeader {
  target: string;
  embedded: boolean;
  plan: RatePlan;
  connections: number;
  durationS: number;
  windowS?: number;
  maxRequests: number;
}

export interface LoadJobOutcome {
  doc: LoadDocument;
  /** The output folder and the two files written in it. */
  files: { dir: string; json: string; html: string };
  /** Load tests added to the Allure results. */
  attached: number;
  exitCode: 0 | 1 | 130 | 143;
}

const CAPACITY_P99_MS = 250;

/** The settings a load resolves, before it starts anything. */
export function loadSettings(o: LoadOptions) {
  const kind = targetKind(!o.target);
  const settings = resolveSettings({
    kind,
    flags: { profile: o.profile, insecure: o.insecure, timeoutMs: o.timeout, eventTimeoutMs: o.eventTimeout },
    profile: o.targetProfile,
    waitsFollowLatency: false,
  });
  const knobs = layered(
    [
      {
        connections: o.connections,
        durationS: o.soak ?? o.duration,
        maxConnections: o.maxConnections,
        subscribers: o.subscribers,
        maxSubscribers: o.maxSubscribers,
        maxSessions: o.maxSessions,
        maxRate: o.maxRate,
      },
      // The profile's concurrency caps the connections.
      { maxConnections: settings.concurrency },
    ],
    LOAD_DEFAULTS[kind],
  );
  return { ...settings, ...knobs };
}

export async function runLoadJob(o: LoadOptions, interruption: Interruption, view: LoadView): Promise<LoadJobOutcome> {
  const scenarios = chooseScenarios(o);
  const plan = ratePlanShape(o);
  const rules = await thresholdRules(o);
  const baseline = o.baseline ? { file: resolve(o.baseline), results: await readBaseline(o.baseline) } : undefined;
  if (o.target && o.fault.length > 0) throw new UsageError('--fault applies to the embedded simulator only; drop --target or --fault.');
  if (o.target && o.dialect) throw new UsageError('--dialect applies to the embedded simulator only; drop --target or --dialect.');
  if (o.capacityCriterion !== undefined && !o.findCapacity) throw new UsageError('--capacity-criterion needs --find-capacity.');
  // Judging each step by conformance needs the verification: the criterion implies --verify.
  const criterion = o.capacityCriterion ?? 'p99';
  if (criterion === 'conformant') o = { ...o, verify: true };
  if (!o.verify && (o.verifyEvery !== undefined || o.verifySessions !== undefined || o.verifyReads !== undefined))
    throw new UsageError('--verify-every, --verify-sessions and --verify-reads need --verify.');

  const s = loadSettings(o);
  const profile = s.profile;
  for (const sc of scenarios) {
    if (!profileAllows(profile, sc.profile))
      throw new UsageError(`The scenario ${sc.name} needs --profile ${sc.profile} (or above); the profile is ${profile}.`);
  }
  const notes: string[] = [];
  const maxConnections = s.maxConnections;
  const connections = capped('connections', s.connections, maxConnections, '--max-connections', notes);
  const maxSubscribers = s.maxSubscribers;
  // Only the events scenario has subscribers: a cap on them matters to no other run.
  const subscribers = scenarios.some((sc) => sc.kind === 'events')
    ? capped('subscribers', s.subscribers, maxSubscribers, '--max-subscribers', notes)
    : Math.min(s.subscribers, maxSubscribers);
  const durationS = s.durationS;
  const windowS = o.soak ? (o.window ?? Math.min(60, Math.max(1, Math.floor(o.soak / 10)))) : undefined;
  const maxRequests = o.maxRequests ?? Math.ceil(durationS * s.requestsPerSecondCap);
  const { timeoutMs, eventTimeoutMs } = s;
  if (plan === 'capacity' && o.rate !== undefined && o.rate > s.maxRate)
    throw new UsageError(
      `--rate ${o.rate} (where the capacity search starts) is above --max-rate ${s.maxRate}${o.maxRate === undefined ? ' (its default here)' : ''}: lower --rate or raise --max-rate.`,
    );
  const ratePlan: RatePlan =
    plan === 'capacity'
      ? {
          kind: 'capacity',
          startRate: o.rate ?? s.startRate,
          maxRate: s.maxRate,
          criterion,
          // Conformant: p99 bounds the search too only when the user gave a bound.
          ...((criterion === 'p99' || o.capacityP99 !== undefined) && { p99BoundMs: o.capacityP99 ?? CAPACITY_P99_MS }),
        }
      : plan === 'ramp'
        ? { kind: 'ramp', ...o.ramp! }
        : plan === 'open'
          ? { kind: 'open', rate: o.rate! }
          : { kind: 'closed' };

  const startedAt = new Date();
  const env = environment();
  const embedded = o.target ? undefined : await startEmbedded(o);
  try {
    const target = embedded?.url ?? withoutTrailingSlashes(o.target!);
    const { client } = await preflight({ target, user: o.user, password: o.password, insecure: s.insecure, timeoutMs });
    const interrupt = new AbortController();
    interruption.onStop(() => interrupt.abort());
    let outcome: LoadOutcome;
    const named = o.targetProfile ? forNamespace(o.targetProfile, o.namespace).writable : [];
    const writable = firstNamed(o.writable, named, embedded?.writable ?? []);
    const mix = o.mix ?? DEFAULT_MIX;
    try {
      await checkPaths(client, scenarios, mix, o.namespace);
      const needWrites =
        scenarios.some((sc) => sc.kind === 'write-mix' || sc.kind === 'events') ||
        ((plan === 'capacity' || o.verify === true) && profileAllows(profile, 'safe'));
      const resolved = needWrites ? await resolveWritables(client, writable, o.namespace) : { writable, unmatched: [] };
      for (const w of resolved.unmatched) notes.push(`not written: ${w} matches nothing on this target`);
      const prepared = needWrites ? await prepareWrites(client, resolved.writable) : { cycles: [], skipped: [] };
      for (const sk of prepared.skipped) notes.push(`not written: ${sk}`);
      const writing = scenarios.filter((sc) => sc.kind === 'write-mix' || sc.kind === 'events');
      if (writing.length > 0 && prepared.cycles.length === 0) {
        throw new UsageError(
          `The scenario ${writing[0]!.name} needs an attribute it can write: name one with --writable PATH:ATTR[=V1|V2]${prepared.skipped.length ? ` (${prepared.skipped.join('; ')})` : ''}.`,
        );
      }
      // Loaded once the flags, the target and its paths have passed: a refusal never pays for the load engines.
      const { runLoad } = await import('../load/run-load.js');
      view.start({ target: publicUrl(target), embedded: Boolean(embedded), plan: ratePlan, connections, durationS, windowS, maxRequests });
      outcome = await runLoad({
        client,
        baseUrl: target,
        insecure: s.insecure,
        namespace: o.namespace,
        user: o.user,
        password: o.password,
        profile,
        scenarios,
        mix,
        cycles: prepared.cycles,
        plan: ratePlan,
        connections,
        durationS,
        maxRequests,
        timeoutMs,
        abortErrorRate: o.abortErrorRate / 100,
        windowS,
        subscribers,
        eventWriteRate: plan === 'open' ? o.rate! : s.eventWriteRate,
        eventTimeoutMs,
        maxSessions: s.maxSessions,
        maxSubscribers,
        signal: interrupt.signal,
        onProgress: (name, p, plannedS) => view.progress(name, p, plannedS),
        onCapacityStep: (name, step) => view.capacityStep(name, step),
        onScenario: (r) => view.scenario(r),
        ...(o.verify && {
          verify: {
            every: o.verifyEvery ?? DEFAULT_VERIFY_EVERY,
            sessions: o.verifySessions ?? DEFAULT_VERIFY_SESSIONS,
            ...(o.verifyReads && { reads: o.verifyReads }),
          },
        }),
      });
    } finally {
      view.end();
      await client.logout().catch(() => undefined);
      await client.close();
    }
    notes.push(...outcome.notes);

    const thresholds = evaluate(rules, outcome.results, { sessions: outcome.sessions, subscribers: outcome.subscribers });
    const changes: Change[] = baseline ? compareToBaseline(outcome.results, baseline.results, o.tolerance) : [];
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
      ...(outcome.verification ? verificationFailures(outcome.verification) : []),
    ];
    const { signal, at } = interruption;
    const interrupted = signal && at ? { signal, at: at.toISOString() } : undefined;
    const settings: LoadSettings = {
      profile,
      mode: ratePlan.kind,
      scenarios: scenarios.map((sc) => sc.name),
      connections,
      maxConnections,
      durationS,
      maxRequests,
      timeoutMs,
      abortErrorRatePct: o.abortErrorRate,
      ...(ratePlan.kind === 'open' && { rate: ratePlan.rate }),
      ...(ratePlan.kind === 'ramp' && { ramp: `${ratePlan.from}:${ratePlan.to}:${ratePlan.steps}` }),
      ...(ratePlan.kind === 'capacity' && {
        capacity: {
          startRate: ratePlan.startRate,
          maxRate: ratePlan.maxRate,
          criterion: ratePlan.criterion,
          ...(ratePlan.p99BoundMs !== undefined && { p99BoundMs: ratePlan.p99BoundMs }),
        },
      }),
      ...(o.soak && { soakS: o.soak, windowS }),
      ...(scenarios.some((sc) => sc.kind === 'events') && { subscribers }),
      ...(scenarios.some((sc) => sc.kind === 'read-mix') && { mix: { ...mix } }),
      writable: writable.map((w) => `${w.path}:${w.name}`),
    };
    const doc: LoadDocument = {
      tool: 'bmc-conformance load',
      format: 1,
      target: publicUrl(target),
      embedded: Boolean(embedded),
      faults: o.fault,
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
      ...(baseline && { baseline: { file: baseline.file, tolerancePct: o.tolerance, changes } }),
      restores: outcome.restores,
      notes,
      ...(outcome.verification && { verification: verificationOf(outcome.verification) }),
      ...(interrupted && { interrupted }),
      // Cut short, the figures are partial: they neither pass nor fail the target.
      verdict: interrupted ? 'interrupted' : failures.length > 0 ? 'fail' : 'pass',
      failures,
    };
    const written = await writeOutputs(o.out, doc);
    return { doc, ...written, exitCode: interruption.exitCode ?? (failures.length > 0 ? 1 : 0) };
  } finally {
    await embedded?.stop();
  }
}

async function writeOutputs(out: string, doc: LoadDocument): Promise<Pick<LoadJobOutcome, 'files' | 'attached'>> {
  const dir = resolve(out);
  await mkdir(dir, { recursive: true });
  const json = join(dir, 'load.json');
  const html = join(dir, 'load.html');
  await writeFile(json, `${JSON.stringify(doc, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`);
  await writeFile(html, await renderLoadHtml(doc));
  const attached = await attachToAllure(dir, doc, { json, html });
  return { files: { dir, json, html }, attached };
}

function chooseScenarios(flags: LoadOptions): Scenario[] {
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

function ratePlanShape(flags: LoadOptions): RatePlan['kind'] {
  if (flags.findCapacity) return 'capacity';
  if (flags.ramp) return 'ramp';
  return flags.rate !== undefined ? 'open' : 'closed';
}

async function thresholdRules(flags: LoadOptions): Promise<Rule[]> {
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

async function startEmbedded(flags: LoadOptions): Promise<EmbeddedTarget> {
  // Loaded only without --target: a run against a target has no use for the simulator's modules.
  const { startEmbeddedTarget } = await import('./embedded.js');
  try {
    return await startEmbeddedTarget({
      namespace: flags.namespace,
      user: flags.user,
      password: flags.password,
      faults: flags.fault,
      tftp: false,
      ...(flags.dialect && { dialect: flags.dialect }),
    });
  } catch (err) {
    const message = messageOf(err);
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
