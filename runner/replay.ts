/**
 * `bmc-conformance replay`: repeats what a failing test of a finished run did, from its evidence
 * in results.json, against a target, and says of each request whether the target answers as it
 * did in the run.
 *
 * Subscriptions are reopened with their filters, reads and attribute writes are sent again in
 * their order and at their pace (gaps capped), and every written value is put back afterwards.
 * Deletes, uploads, actions, logins and logouts are listed with a curl line, never repeated: a
 * replay must not do on hardware what the user did not ask for again. The finding counts as
 * reproduced only when the requests it is about (replay-failing.ts) were repeated and answered alike.
 */
import { dataOf } from '../client/answer.js';
import { join } from 'node:path';
import { toCurl } from '../client/curl.js';
import { BmcClientError } from '../client/errors.js';
import { EvidenceLog, type Exchange } from '../client/evidence.js';
import { parseJson } from '../client/json.js';
import { EventSubscriber, type ConnectOutcome } from '../client/subscriber.js';
import { replayLine, timelineText } from '../client/timeline.js';
import { readResults, RESULTS_FILE } from '../report/results-json.js';
import { preflight } from './preflight.js';
import { failingRequests, isSubscription, type FailingRequests } from './replay-failing.js';
import { conclusion, judge, verdictText, type ReplayResult, type RequestReport, type RequestVerdict } from './replay-verdict.js';
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
  result: ReplayResult;
  /** result is 'reproduced'. */
  reproduced: boolean;
  /** The signal that stopped the replay: it put back what it wrote and judged nothing. */
  interrupted?: StopSignal;
  /** Every answer and every subscription that differs from the run, as sentences. */
  differences: string[];
  /** Each request of the test (and each the finding names that the evidence lacks), in the run's order. */
  requests: RequestReport[];
}

/** A longer pause of the run between two steps is shortened to this. */
const MAX_GAP_MS = 2_000;
/**
 * Messages that arrived this soon after their filter was sent are not compared: whether the write
 * behind them fell before or after the filter is a race, in the run as in the replay.
 */
const FILTER_RACE_MS = 150;
/** Requests kept of the replay: more than any test's evidence holds. */
const REPLAY_LOG_CAPACITY = 10_000;

type Step =
  | { kind: 'subscribe'; x: Exchange; n: number }
  | { kind: 'filter'; x: Exchange; n: number; at: string }
  | { kind: 'close'; x: Exchange; n: number; at: string }
  | { kind: 'request'; x: Exchange }
  | { kind: 'skipped'; x: Exchange; why: string };

interface Picked {
  requirement: string;
  test: string;
  reason?: string;
  evidence: Exchange[];
}

function pickTest(results: Results, requirement?: string): Picked {
  const candidates = results.requirements.filter((r) => requirement === undefined || r.id === requirement);
  if (requirement !== undefined && candidates.length === 0) throw new UsageError(`The run has no requirement ${requirement}.`);
  for (const r of candidates) {
    for (const t of r.tests) {
      if ((t.verdict === 'FAIL' || t.verdict === 'WARN') && (t.evidence ?? []).length > 0) {
        return {
          requirement: r.id,
          test: t.name,
          reason: t.reason,
          evidence: [...t.evidence!].sort((a, b) => Date.parse(a.at) - Date.parse(b.at)),
        };
      }
    }
  }
  throw new UsageError(
    requirement === undefined
      ? 'The run has no failing or warning test with evidence to replay.'
      : `${requirement} has no failing or warning test with evidence in this run; replay takes one that has.`,
  );
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

/** Why a replay does not send this request again; undefined when it does. */
function notRepeatedWhy(x: Exchange): string | undefined {
  if (isSubscription(x))
    return x.status === 101
      ? undefined
      : `the run's subscription was refused (${x.status ?? 'no answer'}); a replay reopens only those that opened`;
  if (/\/login\/?$/.test(x.url)) return 'a login is not repeated by replay: it keeps its own session';
  if (/\/logout\/?$/.test(x.url)) return 'a logout is not repeated by replay: it keeps its own session';
  if (x.method === 'DELETE') return 'a delete is not repeated by replay';
  if (/^\/upload\//.test(x.url)) return 'an upload is not repeated by replay';
  if (/\/action\/[^/]+\/?$/.test(x.url)) return 'an action is not repeated by replay';
  if (x.method !== 'GET' && x.method !== 'PUT') return `${x.method} is not repeated by replay`;
  if (sentBody(x) === null) return 'the evidence did not keep its body whole';
  return undefined;
}

/**
 * A close the target made: it gave a reason, or a code other than a plain close. A test's own
 * close (code 1000, no reason) cannot be told from a target's plain one and counts as the test's.
 */
function targetClose(closed: { code: number; reason: string } | undefined): { code: number; reason: string } | undefined {
  return closed && (closed.reason !== '' || (closed.code !== 1000 && closed.code !== 1005)) ? closed : undefined;
}

function closeText(closed: { code: number; reason: string } | undefined): string {
  return closed ? `closed by the target (code ${closed.code}${closed.reason ? ` "${closed.reason}"` : ''})` : 'kept open';
}

/** When a step happens in the run. */
function stepAt(step: Step): number {
  return Date.parse(step.kind === 'close' || step.kind === 'filter' ? step.at : step.x.at);
}

function stepsOf(evidence: readonly Exchange[]): Step[] {
  let n = 0;
  const closes: Step[] = [];
  const steps = evidence.map((x): Step => {
    const why = notRepeatedWhy(x);
    if (why !== undefined) return { kind: 'skipped', x, why };
    if (isSubscription(x)) {
      n += 1;
      // The filter goes at the run's moment: a check may have provoked the socket before sending it.
      closes.push({ kind: 'filter', x, n, at: x.filterSentAt ?? x.at });
      // Closed by the test during the run: the replay closes it at the same point. One the target
      // closed is left to the replay's target, to see whether it closes it too.
      if (x.closed && !targetClose(x.closed)) closes.push({ kind: 'close', x, n, at: x.closed.at });
      return { kind: 'subscribe', x, n };
    }
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
 * For one subscription and each attribute write (in sending order): did a message carrying the
 * written value arrive ('got'), or not ('missed'); 'race' when the write was sent too close to the
 * filter or the close for either answer to mean anything. Computed the same way from the run's
 * evidence and from the replay's, so that the two can be compared.
 */
function deliveries(sub: Exchange, writes: readonly Write[]): Delivery[] {
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

/** How the replay's subscription n went: its handshake, and a close its target made before the replay closed it. */
interface Reopened {
  status: string;
  closedByTarget?: { code: number; reason: string };
}

/** A request the finding names that the evidence lacks, as the user would send it. */
function absentLine(method: string, path: string, target: string): string | undefined {
  return ['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(method) ? toCurl(method, target, path) : undefined;
}

export async function replay(opts: ReplayOptions): Promise<ReplayOutcome> {
  const results = await readResults(join(opts.dir, RESULTS_FILE));
  const picked = pickTest(results, opts.requirement);
  const failing = failingRequests(picked.reason, picked.evidence);
  const steps = stepsOf(picked.evidence);
  // Preflight says in one sentence what is wrong with the target or the credentials; its session is the replay's.
  const log = new EvidenceLog({ secrets: [opts.password], capacity: REPLAY_LOG_CAPACITY });
  const { client } = await preflight({
    target: opts.target,
    user: opts.user,
    password: opts.password,
    insecure: opts.insecure,
    timeoutMs: opts.timeoutMs,
    evidence: log,
  });
  opts.print(`replaying "${picked.test}" (${picked.requirement}) of ${results.target} against ${opts.target}`);
  opts.print(aboutLine(failing));
  const subscribers = new Map<number, EventSubscriber | undefined>();
  const opening = new Map<number, { send: () => void; outcome: Promise<ConnectOutcome> }>();
  const reopened = new Map<number, Reopened>();
  const answers = new Map<Exchange, string>();
  const restores = new Map<string, unknown>();
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
  /** A close the target made on subscription n before the replay closed it. */
  const noteTargetClose = (n: number): void => {
    const info = subscribers.get(n)?.closeInfo;
    const seen = reopened.get(n);
    if (info && seen && !seen.closedByTarget) seen.closedByTarget = info;
  };
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
        reopened.set(step.n, {
          status: outcome.kind === 'refused' ? `refused (${outcome.status ?? 'no answer'})` : '101',
          ...(outcome.kind === 'closed' && { closedByTarget: { code: outcome.code, reason: outcome.reason } }),
        });
        continue;
      }
      if (step.kind === 'close') {
        noteTargetClose(step.n);
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
      const res = await client
        .request(x.method, x.url, {
          ...(body !== undefined && { body }),
          ...(contentType !== undefined && { contentType }),
          auth: hadCredentials(x),
          relogin: false,
        })
        .catch((err: unknown) => {
          if (err instanceof BmcClientError) return err;
          throw err;
        });
      answers.set(x, res instanceof BmcClientError ? 'no answer' : `${res.status}${envelopeStatus(res.text)}`);
    }
    if (!stopped()) await pause(opts.waitMs);
    for (const n of subscribers.keys()) noteTargetClose(n);
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
  if (signals.signal) return { result: 'different', reproduced: false, differences: [], requests: [], interrupted: signals.signal };
  const replayed = log.entries();
  // The replay's subscriptions in the order they were opened: the n-th is the run's n-th.
  const replayedSubs = replayed.filter(isSubscription).sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  // The run's attribute writes that the replay sent, and the replay's, in the same order (its
  // restores come after them, once the subscriptions closed).
  const writes = { run: writesOf(picked.evidence.filter((x) => answers.has(x))), now: writesOf(replayed) };
  const differences: string[] = [];
  const subscriptionDifferences: string[] = [];
  const requests: RequestReport[] = [];
  let n = 0;
  for (const x of picked.evidence) {
    const skipped = notRepeatedWhy(x);
    const subscription = isSubscription(x);
    if (subscription && skipped === undefined) n += 1;
    const label = subscription
      ? `subscription${skipped === undefined ? ` ${n}` : ''}${x.requestBody === undefined ? '' : ` (filter ${x.requestBody})`}`
      : `${x.method} ${x.url}`;
    let verdict: RequestVerdict;
    if (skipped !== undefined) {
      verdict = { kind: 'not-repeatable', why: skipped, byHand: replayLine(x, opts.target) };
    } else if (subscription) {
      const changes = subscriptionChanges(x, reopened.get(n), replayedSubs[n - 1], writes);
      for (const c of changes) subscriptionDifferences.push(`${label} ${c.now}; in the run ${c.run}`);
      verdict =
        changes.length > 0
          ? { kind: 'different', run: changes.map((c) => c.run).join('; '), now: changes.map((c) => c.now).join('; ') }
          : x.framesDropped
            ? { kind: 'not-compared', why: `the run kept only its first ${x.frames?.length ?? 0} messages` }
            : { kind: 'same' };
    } else {
      const now = answers.get(x) ?? 'not sent';
      const run = `${x.status ?? 'no answer'}${envelopeStatus(x.responseBody)}`;
      verdict = now === run ? { kind: 'same' } : { kind: 'different', run, now };
      if (now !== run) differences.push(`${label} answered ${now}; in the run ${run}`);
    }
    requests.push({ label, failing: failing.exchanges.has(x), verdict, ...(subscription && { subscription: true as const }) });
  }
  for (const a of failing.absent) {
    const byHand = absentLine(a.method, a.path, opts.target);
    requests.push({
      label: `${a.method} ${a.path}`,
      failing: true,
      verdict: {
        kind: 'not-repeatable',
        why: `the run did not keep it in the test's evidence${byHand === undefined ? ', nor its body: see the finding' : ''}`,
        ...(byHand !== undefined && { byHand }),
      },
    });
  }
  opts.print('timeline of the replay:');
  const timeline = timelineText(replayed.filter((x) => !/\/(login|logout)\/?$/.test(x.url)));
  if (timeline === '') opts.print('  nothing was sent again');
  else for (const line of timeline.split('\n')) opts.print(`  ${line}`);
  opts.print(`each request of the test${failing.basis === 'named' ? ' (* the finding is about it)' : ''}:`);
  for (const r of requests) {
    opts.print(`${r.failing && failing.basis === 'named' ? '*' : ' '} ${r.label}: ${verdictText(r.verdict)}`);
    if (r.verdict.kind === 'not-repeatable' && r.verdict.byHand) opts.print(`    by hand: ${r.verdict.byHand}`);
  }
  const result = judge(requests, subscriptionDifferences);
  opts.print(conclusion(result, requests, subscriptionDifferences, n));
  return { result, reproduced: result === 'reproduced', differences: [...differences, ...subscriptionDifferences], requests };
}

/** The sentence naming the requests the finding is about, or saying that it names none. */
function aboutLine(failing: FailingRequests): string {
  if (failing.basis === 'every') return 'the finding names none of its requests: each request of the test counts as the one it is about';
  const labels = [
    ...[...failing.exchanges].map((x) =>
      isSubscription(x) ? `the subscription with filter ${x.requestBody ?? ''}` : `${x.method} ${x.url}`,
    ),
    ...failing.absent.map((a) => `${a.method} ${a.path} (not in the evidence)`),
  ];
  return `the finding is about: ${labels.join('; ')}`;
}

/**
 * What differs between the run's subscription and the replay's: its handshake, a close by the
 * target, and each change it received where the other did not; each as the run's and the replay's.
 */
function subscriptionChanges(
  run: Exchange,
  seen: Reopened | undefined,
  now: Exchange | undefined,
  writes: { run: readonly Write[]; now: readonly Write[] },
): Array<{ run: string; now: string }> {
  if (!seen) return [{ run: 'opened', now: 'not reopened' }];
  if (seen.status !== '101') return [{ run: 'opened', now: seen.status }];
  const out: Array<{ run: string; now: string }> = [];
  const runClose = closeText(targetClose(run.closed));
  const nowClose = closeText(targetClose(seen.closedByTarget));
  if (runClose !== nowClose) out.push({ run: runClose, now: nowClose });
  if (run.framesDropped || !now) return out;
  const before = deliveries(run, writes.run);
  const after = deliveries(now, writes.now);
  const received = (d: Delivery, w: Write): string =>
    `${d === 'got' ? 'received' : 'did not receive'} the change of ${w.path} ${w.name} to ${w.value}`;
  writes.run.forEach((w, i) => {
    const b = before[i];
    const a = after[i];
    if (b === 'race' || a === 'race' || b === undefined || a === undefined || b === a) return;
    out.push({ run: received(b, w), now: received(a, w) });
  });
  return out;
}
