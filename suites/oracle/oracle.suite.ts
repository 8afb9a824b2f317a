/**
 * The run-wide oracles: after every area of the run, each statement that holds for every answer
 * is judged from all the answers the run received (suites/harness/answers.ts), and each statement
 * that holds for every event from every message every subscription of the run received, against
 * the run's causes (suites/harness/event-oracle.ts), whichever area asked, wrote or subscribed.
 * They send nothing of their own but the leak oracle's reading of the tree and the end of the
 * run's watcher subscription.
 */
import { beforeAll } from 'vitest';
import { redactText } from '../../client/evidence.js';
import { sameValue } from '../../client/values.js';
import { check, runConfig, type CheckContext } from '../harness/check.js';
import { eventLedger, type Cause } from '../harness/event-ledger.js';
import {
  EVENT_ORACLE_REQUIREMENTS,
  judgeEvents,
  propsOf,
  type EventOracleRequirement,
  type EventVerdicts,
} from '../harness/event-oracle.js';
import { stopWatching, WATCHER_ROLE } from '../harness/watcher.js';
import { lingeringClosed } from '../harness/lingering.js';
import { ANSWER_CHECKS, asResponse, type AnswerCheck } from '../harness/answer-checks.js';
import { answerTally, anonymousRefusals, type AnswerFinding } from '../harness/answers.js';
import { discoverKnowledge, leakIn } from '../harness/leak.js';

/** Findings named in a reason; the rest are counted. */
const NAMED = 12;

function findingLine(f: Pick<AnswerFinding, 'site' | 'problem' | 'exchange'>, secrets: readonly string[]): string {
  const url = f.exchange.url.length > 100 ? `${f.exchange.url.slice(0, 100)}…` : f.exchange.url;
  return redactText(`${f.site}: ${f.exchange.method} ${url} answered ${f.exchange.status}: ${f.problem}`, secrets);
}

/** The reason of a FAIL: how many answers broke the statement, at which sites, and the first of each. */
function reason(
  broken: number,
  judged: number,
  findings: ReadonlyArray<Pick<AnswerFinding, 'site' | 'problem' | 'exchange'>>,
  t: CheckContext,
): string {
  const sites = [...new Set(findings.map((f) => f.site))];
  const named = findings.slice(0, NAMED).map((f) => findingLine(f, [t.cfg.password]));
  const more = broken > named.length ? `; and ${broken - named.length} more` : '';
  return `${broken} of ${judged} answers of the run broke it, at ${sites.length} site(s) (${sites.join(', ')}): ${named.join('; ')}${more}`;
}

function answersCheck(c: AnswerCheck): void {
  check(
    c.requirement,
    `run-wide, in every answer of the run: ${c.statement}`,
    async (t) => {
      const tally = answerTally(c.requirement);
      if (tally.judged === 0) t.notTested('not judged: no answer of the run was of the kind this statement holds for');
      if (tally.broken > 0) t.showExchanges(tally.kept.map((f) => f.exchange));
      t.judge(c.requirement, tally.broken === 0, reason(tally.broken, tally.judged, tally.kept, t));
    },
    { ownSession: true },
  );
}

for (const c of ANSWER_CHECKS) answersCheck(c);

check('AUTH-5', 'run-wide, in every answer of the run: no refusal of a request without credentials carries data of the tree', async (t) => {
  const { kept, seen } = anonymousRefusals();
  if (seen === 0) t.notTested('not judged: the run sent no request without credentials that was refused with a body');
  const knowledge = await discoverKnowledge(t.client, t.ns, t.cfg.treeSnapshot);
  const leaks: Array<Pick<AnswerFinding, 'site' | 'problem' | 'exchange'>> = [];
  for (const a of kept) {
    const leak = leakIn(asResponse(a), { path: a.x.url, body: a.x.requestBody }, knowledge);
    if (leak) leaks.push({ site: `${a.route}:${a.outcome}`, problem: leak, exchange: a.x });
  }
  if (leaks.length > 0) t.showExchanges(leaks.slice(0, NAMED).map((l) => l.exchange));
  t.judge('AUTH-5', leaks.length === 0, reason(leaks.length, kept.length, leaks, t));
});

// --- Events: every message of every subscription of the run, against the run's causes ---------

const EVENT_STATEMENTS: Readonly<Record<EventOracleRequirement, string>> = {
  'EV-1': 'an empty filter delivers every change the run made and saw applied',
  'EV-2': 'no PropertiesChanged reports a change that never happened (a refused write, a write of the value a property had)',
  'EV-4': 'a paths filter delivers nothing it never admits, and every change it must admit',
  'EV-5': 'an interfaces filter delivers nothing it never admits, and every change it must admit',
  'EV-6': 'a filter of paths and interfaces delivers nothing that neither admits, and every change either must admit',
  'EV-7': 'every message is an InterfacesAdded or a PropertiesChanged event',
  'EV-8': 'each change reaches every live subscription whose filter admits it, once',
};

let events: { verdicts: EventVerdicts; watcherProblem?: string } | undefined;

/**
 * Whether the watcher has an event for each change the run's last writes are known to make (so that
 * it can close at once): a write of a value other than the one held before, answered by a
 * PropertiesChanged of that attribute sent after it. Whether its value is right is the oracle's to
 * judge, and a write whose value before is unknown may change nothing: neither is waited for (the
 * oracle judges what arrived, and no subscription closed early is owed what it could not get).
 */
function owedArrived(causes: readonly Cause[], since: number): boolean {
  const watcher = eventLedger().subscriptions.find((s) => s.role?.startsWith(WATCHER_ROLE) === true && !s.subscriber.closed);
  if (!watcher) return true;
  const got = watcher.subscriber.events;
  return causes
    .filter((c) => c.outcome === 'accepted' && c.answeredAt >= since && (c.kind === 'put-attr' || c.kind === 'put-object'))
    .every((c) =>
      Object.entries(c.values).every(
        ([name, value]) =>
          c.before[name] === undefined ||
          sameValue(c.before[name].value, value) ||
          got.some((e) => {
            const p = e.at >= c.sentAt ? propsOf(e.data) : undefined;
            return p?.path === c.path && Object.hasOwn(p.props, name);
          }),
      ),
    );
}

beforeAll(async () => {
  const cfg = runConfig();
  const { causes } = eventLedger();
  // What checks' sockets receive in their last quiet windows is judged here: they close first.
  await lingeringClosed();
  // The last writes' events may still be on their way: wait for them, at most an event timeout.
  const last = Math.max(0, ...causes.map((c) => c.answeredAt));
  const since = last - cfg.eventTimeoutMs;
  const watcherProblem = await stopWatching(() => owedArrived(causes, since), last + cfg.eventTimeoutMs);
  const verdicts = judgeEvents({ ...eventLedger(), boundMs: cfg.eventTimeoutMs, latencyMs: cfg.eventLatency.maxMs });
  events = watcherProblem === undefined ? { verdicts } : { verdicts, watcherProblem };
}, 120_000);

function eventsCheck(requirement: EventOracleRequirement): void {
  check(
    requirement,
    `run-wide, on every subscription of the run: ${EVENT_STATEMENTS[requirement]}`,
    async (t) => {
      const { verdicts, watcherProblem } = events!;
      if (verdicts.judged[requirement] === 0) {
        const watcher = watcherProblem ? `; the run's watcher subscription never opened: ${watcherProblem}` : '';
        t.notTested(`not judged: no message or change of the run was of the kind this statement holds for${watcher}`);
      }
      t.observe('messages and changes judged', verdicts.judged[requirement]);
      if (verdicts.setAside.length > 0)
        t.observe('properties written by the run that change by themselves (not attributed)', verdicts.setAside);
      const found = verdicts.findings.filter((f) => f.requirement === requirement);
      if (found.length > 0) t.showExchanges(found.flatMap((f) => f.exchanges));
      const lines = found.map((f) => redactText(f.problem, [t.cfg.password]));
      t.judge(requirement, found.length === 0, `${lines.length} finding(s) in ${verdicts.judged[requirement]} judged: ${lines.join('; ')}`);
    },
    { ownSession: true },
  );
}

for (const r of EVENT_ORACLE_REQUIREMENTS) eventsCheck(r);
