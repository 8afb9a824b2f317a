/**
 * `bmc-conformance replay`: repeats what a failing test of a finished run did, from its evidence
 * in results.json, against a target, and says whether the target answers as it did in the run.
 *
 * Subscriptions are reopened with their filters, reads and attribute writes are sent again in
 * their order and at their pace (gaps capped), and every written value is put back afterwards.
 * Deletes, uploads, actions, logins and logouts are listed, never repeated: a replay must not do
 * on hardware what the user did not ask for again.
 */
import { dataOf } from '../client/answer.js';
import { join } from 'node:path';
import { EvidenceLog, type Exchange } from '../client/evidence.js';
import { parseJson } from '../client/json.js';
import { EventSubscriber, type ConnectOutcome } from '../client/subscriber.js';
import { timelineText } from '../client/timeline.js';
import { readResults, RESULTS_FILE } from '../report/results-json.js';
import { preflight } from './preflight.js';
import { JobSignals, type StopSignal } from './signals.js';
import type { Results } from '../client/results.js';
import { UsageError } from '../client/usage-error.js';

export interface ReplayOptions {
  /** The run folder holding results.json. */
  dir: string;
  /** The requirement whose failing test is replayed; default the first failing test with evidence. */
  requirement?: string;
  target: string;
  user: string;
  password: string;
  insecure: boolean;
  timeoutMs: number;
  /** How long the subscriptions keep listening after the last request. */
  waitMs: number;
  print: (line: string) => void;
}

export interface ReplayOutcome {
  reproduced: boolean;
  /** The signal that stopped the replay: it put back what it wrote and judged nothing. */
  interrupted?: StopSignal;
  differences: string[];
}

/** A longer pause of the run between two steps is shortened to this. */
const MAX_GAP_MS = 2_000;
/**
 * Messages that arrived this soon after their filter was sent are not compared: whether the write
 * behind them fell before or after the filter is a race, in the run as in the replay.
 */
const FILTER_RACE_MS = 150;
/** Differences named in the closing sentence. */
const MAX_LISTED = 5;

type Step =
  | { kind: 'subscribe'; x: Exchange; n: number }
  | { kind: 'filter'; x: Exchange; n: number; at: string }
  | { kind: 'close'; x: Exchange; n: number; at: string }
  | { kind: 'request'; x: Exchange }
  | { kind: 'skipped'; x: Exchange; why: string };

interface Picked {
  requirement: string;
  test: string;
  evidence: Exchange[];
}

function pickTest(results: Results, requirement?: string): Picked {
  const candidates = results.requirements.filter((r) => requirement === undefined || r.id === requirement);
  if (requirement !== undefined && candidates.length === 0) throw new UsageError(`The run has no requirement ${requirement}.`);
  for (const r of candidates) {
    for (const t of r.tests) {
      if ((t.verdict === 'FAIL' || t.verdict === 'WARN') && (t.evidence ?? []).length > 0) {
        return { requirement: r.id, test: t.name, evidence: [...t.evidence!].sort((a, b) => Date.parse(a.at) - Date.parse(b.at)) };
      }
    }
  }
  throw new UsageError(
    requirement === undefined
      ? 'The run has no failing or warning test with evidence to replay.'
      : `${requirement} has no failing or warning test with evidence in this run; replay takes one that has.`,
  );
}

function isSubscription(x: Exchange): boolean {
  return x.method === 'GET' && /^\/subscribe\/?$/.test(x.url);
}

function hadCredentials(x: Exchange): boolean {
  return Object.keys(x.requestHeaders).some((h) => h.toLowerCase() === 'cookie' || h.toLowerCase() === 'x-auth-token');
}

function contentTypeOf(x: Exchange): string | undefined {
  const key = Object.keys(x.requestHeaders).find((h) => h.toLowerCase() === 'content-type');
  return key === undefined ? undefined : x.requestHeaders[key];
}

/** The body as the run sent it, unless the evidence kept only part or a description of it. */
function sentBody(x: Exchange): string | undefined | null {
  const body = x.requestBody;
  if (body === undefined) return undefined;
  if (/…\[truncated, \d+ characters in total\]$/.test(body) || /^<\d+ bytes of binary data/.test(body) || body.includes('***')) return null;
  return body;
}

/** When a step happens in the run. */
function stepAt(step: Step): number {
  return Date.parse(step.kind === 'close' || step.kind === 'filter' ? step.at : step.x.at);
}

function stepsOf(evidence: readonly Exchange[]): Step[] {
  let n = 0;
  const closes: Step[] = [];
  const steps = evidence.map((x): Step => {
    if (isSubscription(x)) {
      if (x.status !== 101) return { kind: 'skipped', x, why: 'a refused subscription' };
      n += 1;
      // The filter goes at the run's moment: a check may have provoked the socket before sending it.
      closes.push({ kind: 'filter', x, n, at: x.filterSentAt ?? x.at });
      // Closed during the run (by the test or the target): the replay closes it at the same point.
      if (x.closed) closes.push({ kind: 'close', x, n, at: x.closed.at });
      return { kind: 'subscribe', x, n };
    }
    if (/\/(login|logout)\/?$/.test(x.url)) return { kind: 'skipped', x, why: 'the replay keeps its own session' };
    if (x.method !== 'GET' && x.method !== 'PUT') return { kind: 'skipped', x, why: `${x.method} is not repeated by a replay` };
    if (sentBody(x) === null) return { kind: 'skipped', x, why: 'its body was not kept whole' };
    return { kind: 'request', x };
  });
  // A stable sort: steps at the same instant keep the run's order.
  return [...steps, ...closes]
    .map((s, i) => ({ s, i }))
    .sort((a, b) => stepAt(a.s) - stepAt(b.s) || a.i - b.i)
    .map((x) => x.s);
}

type Delivery = 'got' | 'missed' | 'race';

/** An attribute write: its object, attribute, value and when it was sent. */
interface Write {
  at: number;
  path: string;
  name: string;
  value: string;
}

function writesOf(exchanges: readonly Exchange[]): Write[] {
  const writes: Write[] = [];
  for (const x of exchanges) {
    const attr = /^(.*)\/attr\/([^/]+)$/.exec(x.url);
    if (x.method !== 'PUT' || !attr || x.requestBody === undefined) continue;
    try {
      writes.push({
        at: Date.parse(x.at),
        path: attr[1]!,
        name: attr[2]!,
        value: JSON.stringify((parseJson(x.requestBody) as { data?: unknown }).data),
      });
    } catch {
      // A body that is not JSON changes nothing an event would carry.
    }
  }
  return writes;
}

/**
 * For each subscription (in opening order) and each attribute write (in sending order): did a
 * message carrying the written value arrive ('got'), or not ('missed'); 'race' when the write
 * was sent too close to the filter or the close for either answer to mean anything. Computed the
 * same way from the run's evidence and from the replay's, so that the two can be compared.
 */
function deliveries(exchanges: readonly Exchange[]): Delivery[][] {
  const writes = writesOf(exchanges);
  return exchanges
    .filter(isSubscription)
    .filter((x) => x.status === 101)
    .map((sub) => {
      const from = Date.parse(sub.filterSentAt ?? sub.at);
      const until = sub.closed ? Date.parse(sub.closed.at) : Infinity;
      const unused = (sub.frames ?? []).map((f) => ({ at: Date.parse(f.at), data: safeParse(f.text) }));
      return writes.map((w): Delivery => {
        if (w.at < from + FILTER_RACE_MS || w.at > until - FILTER_RACE_MS) return 'race';
        const i = unused.findIndex((f) => f.data?.path === w.path && JSON.stringify(f.data.properties?.[w.name]) === w.value);
        if (i < 0) return 'missed';
        unused.splice(i, 1);
        return 'got';
      });
    });
}

/** The envelope's own status member, which a finding may be about (" ok" / " error"), or nothing. */
function envelopeStatus(body: string | undefined): string {
  const status = body === undefined ? undefined : (safeParse(body) as { status?: unknown } | undefined)?.status;
  return typeof status === 'string' ? ` "${status}"` : '';
}

function safeParse(text: string): { path?: unknown; properties?: Record<string, unknown> } | undefined {
  try {
    return parseJson(text) as { path?: unknown; properties?: Record<string, unknown> };
  } catch {
    return undefined;
  }
}

export async function replay(opts: ReplayOptions): Promise<ReplayOutcome> {
  const results = await readResults(join(opts.dir, RESULTS_FILE));
  const picked = pickTest(results, opts.requirement);
  const steps = stepsOf(picked.evidence);
  // Preflight says in one sentence what is wrong with the target or the credentials; its session is the replay's.
  const log = new EvidenceLog({ secrets: [opts.password] });
  const { client } = await preflight({
    target: opts.target,
    user: opts.user,
    password: opts.password,
    insecure: opts.insecure,
    timeoutMs: opts.timeoutMs,
    evidence: log,
  });
  opts.print(`replaying "${picked.test}" (${picked.requirement}) of ${results.target} against ${opts.target}`);
  for (const s of steps.filter((x): x is Extract<Step, { kind: 'skipped' }> => x.kind === 'skipped')) {
    opts.print(`  not repeated: ${s.x.method} ${s.x.url} (${s.why})`);
  }
  const subscribers = new Map<number, EventSubscriber | undefined>();
  const opening = new Map<number, { send: () => void; outcome: Promise<ConnectOutcome> }>();
  const restores = new Map<string, unknown>();
  const differences: string[] = [];
  // Ctrl-C or SIGTERM: no further step; the subscriptions close and every value is put back. A
  // second signal exits at once.
  let wake: () => void = () => {};
  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const signals = new JobSignals({
    first: (signal) => {
      opts.print(`${signal}: the replay stops and puts back what it wrote`);
      wake();
    },
    again: { exit: true },
  });
  const stopped = (): boolean => signals.signal !== undefined;
  try {
    const started = performance.now();
    let runAt = steps.length > 0 ? stepAt(steps[0]!) : 0;
    let due = started;
    for (const step of steps) {
      if (stopped()) break;
      if (step.kind === 'skipped') continue;
      const at = stepAt(step);
      due += Math.min(MAX_GAP_MS, Math.max(0, at - runAt));
      runAt = at;
      const wait = due - performance.now();
      if (wait > 0) await pause(wait);
      if (stopped()) break;
      if (step.kind === 'subscribe') {
        let send = (): void => {};
        const gate = new Promise<void>((resolve) => (send = resolve));
        const outcome = EventSubscriber.tryOpen(client, undefined, {
          raw: step.x.requestBody ?? '',
          auth: hadCredentials(step.x),
          settleMs: 0,
          beforeFilter: () => gate,
        }).catch((): ConnectOutcome => ({ kind: 'refused' }));
        opening.set(step.n, { send, outcome });
        continue;
      }
      if (step.kind === 'filter') {
        const pending = opening.get(step.n)!;
        pending.send();
        const outcome = await pending.outcome;
        subscribers.set(step.n, outcome.kind === 'open' ? outcome.subscriber : undefined);
        if (outcome.kind !== 'open')
          differences.push(
            `subscription ${step.n} was ${outcome.kind === 'refused' ? `refused${outcome.status ? ` (${outcome.status})` : ''}` : `closed (code ${outcome.code})`}; the run's opened`,
          );
        continue;
      }
      if (step.kind === 'close') {
        await subscribers.get(step.n)?.close();
        continue;
      }
      const x = step.x;
      if (x.method === 'PUT' && !restores.has(x.url)) {
        const before = await client.get(x.url);
        if (before.status === 200) restores.set(x.url, dataOf(before));
      }
      const body = sentBody(x) ?? undefined;
      const contentType = contentTypeOf(x);
      const res = await client.request(x.method, x.url, {
        ...(body !== undefined && { body }),
        ...(contentType !== undefined && { contentType }),
        auth: hadCredentials(x),
        relogin: false,
      });
      const answer = `${res.status}${envelopeStatus(res.text)}`;
      const before = `${x.status ?? 'no answer'}${envelopeStatus(x.responseBody)}`;
      if (answer !== before) differences.push(`${x.method} ${x.url} answered ${answer}; in the run ${before}`);
    }
    if (!stopped()) await pause(opts.waitMs);
  } finally {
    for (const [n, pending] of opening) {
      pending.send();
      if (subscribers.has(n)) continue;
      const outcome = await pending.outcome;
      if (outcome.kind === 'open') await outcome.subscriber.close();
    }
    for (const sub of subscribers.values()) await sub?.close();
    for (const [url, value] of restores) {
      const back = await client.put(url, value).catch((err: unknown) => err);
      if (back instanceof Error || (back as { status: number }).status >= 300) opts.print(`  could not put back ${url}: check it by hand`);
    }
    // Logs the session out: it is the client's own.
    await client.close();
    signals.dispose();
  }
  if (signals.signal) return { reproduced: false, differences: [], interrupted: signals.signal };
  // Restores come after the subscriptions closed: only the replayed writes are compared.
  const replayed = log.entries();
  const run = deliveries(picked.evidence);
  const now = deliveries(replayed);
  const writes = writesOf(picked.evidence);
  const subs = picked.evidence.filter(isSubscription).filter((x) => x.status === 101);
  subs.forEach((sub, n) => {
    if (sub.framesDropped) {
      opts.print(`  subscription ${n + 1}: the run kept only its first ${sub.frames?.length ?? 0} messages; not compared`);
      return;
    }
    writes.forEach((w, i) => {
      const before = run[n]?.[i];
      const after = now[n]?.[i];
      if (before === 'race' || after === 'race' || before === undefined || after === undefined || before === after) return;
      differences.push(
        `subscription ${n + 1} (filter ${sub.requestBody ?? ''}) ${after === 'got' ? 'received' : 'did not receive'} the change of ${w.path} ${w.name} to ${w.value}; in the run it ${before === 'got' ? 'did' : 'did not'}`,
      );
    });
  });
  opts.print('timeline of the replay:');
  for (const line of timelineText(replayed.filter((x) => !/\/(login|logout)\/?$/.test(x.url))).split('\n')) opts.print(`  ${line}`);
  const reproduced = differences.length === 0;
  opts.print(
    reproduced
      ? 'reproduced: every request answered as in the run, and every subscription received (or missed) the same changes'
      : `did not reproduce: ${differences.slice(0, MAX_LISTED).join('; ')}${differences.length > MAX_LISTED ? `; and ${differences.length - MAX_LISTED} more` : ''}`,
  );
  return { reproduced, differences };
}
