/**
 * Glue between the stateful properties and `check()`: budgets from the run config (stateful runs,
 * rate cap, simulator or hardware), the search for each requirement's finding, and the report of
 * one: the shrunk sequence in the first line of the reason, and in full (every step with its curl
 * lines) as an observation in results.json.
 */
import type { RunConfig } from '../../runner/config.js';
import { requirementsFailedSoFar, type CheckContext } from '../harness/check.js';
import { clip } from '../fuzz/repro.js';
import { REASON_BUDGET, replayHint, searchProperty, searchStats, type FuzzReport } from '../fuzz/runner.js';
import { REPLAY_VARIABLE } from '../fuzz/repro.js';
import type { StatefulProperty } from './property.js';
import { stepsDetail } from './steps.js';
import { StatefulViolation, type StatefulEnv } from './world.js';

/** A request's share of the time: the rate cap's spacing, at least `floor`. */
const perRequestMs = (cfg: RunConfig, floor: number): number =>
  Math.max(cfg.maxRequestsPerSecond ? 1000 / cfg.maxRequestsPerSecond : 0, floor);

/**
 * How long a property goes on starting sequences and shrinking: the run's budget on a target, or,
 * on the embedded simulator, a safety net as long as its sequences (and their shrinking) take.
 */
export function statefulTimeLimitMs(cfg: RunConfig, requestsPerRun: number): number {
  if (cfg.statefulTimeMs !== undefined) return cfg.statefulTimeMs;
  const perRun = requestsPerRun * perRequestMs(cfg, 4) + cfg.eventTimeoutMs + cfg.quietWindowMs;
  return Math.min(Math.max(cfg.statefulRuns * perRun, 3_000), 60 * 60_000);
}

/** The longest one sequence may take on a slow target: every request at its timeout's share, every wait at its bound. */
function sequenceBoundMs(cfg: RunConfig, requestsPerRun: number): number {
  return requestsPerRun * perRequestMs(cfg, 1500) + cfg.eventTimeoutMs * 4 + cfg.quietWindowMs * 4;
}

/** The vitest timeout of a stateful check: discovery, the time limit, and a request in flight. */
export function statefulCheckTimeoutMs(cfg: RunConfig, requestsPerRun: number): number {
  // The sequence under way when the limit passes finishes, as does the replay of a finding's.
  return statefulTimeLimitMs(cfg, requestsPerRun) + 2 * sequenceBoundMs(cfg, requestsPerRun) + cfg.timeoutMs * 4 + 10_000;
}

/** "problem — after N step(s): 1. …; 2. … — replay: --seed S BMC_FUZZ_PATH=key/REQ:path", then the steps in full. */
export function findingMessage(report: FuzzReport<unknown>, baseUrl: string): string {
  const v = report.violation as StatefulViolation;
  const replay = ` — ${replayHint(report)}`;
  const detail = stepsDetail(baseUrl, v.steps);
  // "1. …; 2. …": the sequence in one line.
  const steps = ` — after ${v.steps.length} step(s): ${detail.map((s) => s.step).join('; ')}`;
  const problem = v.problem.replace(/\s+/g, ' ');
  const room = REASON_BUDGET - replay.length;
  // The problem first, the steps in what is left (at least 60 characters of them).
  const head = clip(problem, Math.min(Math.max(160, room - steps.length), room - 60));
  const first = `${head}${clip(steps, room - head.length)}${replay}`;
  return [
    first,
    `property ${report.key}: failed after ${report.numRuns} run(s), shrunk in ${report.numShrinks} step(s); property seed ${report.seed}`,
    ...detail.flatMap((s) => [s.step, ...s.curl.map((c) => `  ${c}`), ...(s.notes ?? []).map((n) => `  (${n})`)]),
    "(curl uses $COOKIE for the run's session cookie, $COOKIE_A… for the sessions the steps log in, $PASSWORD for the password)",
  ].join('\n');
}

/**
 * Searches a property for a finding of each requirement it judges, within the run's budget, and
 * records what ran. Each finding fails its own requirement, with its shrunk sequence.
 */
export async function runStateful<T>(t: CheckContext, env: StatefulEnv, property: StatefulProperty<T>): Promise<void> {
  const { notes } = property;
  const timeLimitMs = statefulTimeLimitMs(t.cfg, property.requestsPerRun);
  // A deviation an earlier area already failed would end (and be shrunk in) sequence after
  // sequence: set aside, the sequences go on past it to what no other area sees.
  const failed = requirementsFailedSoFar();
  const setAside = property.requirements.filter((r) => failed.has(r));
  if (setAside.length > 0) t.observe(`stateful ${property.key} set aside (failed earlier in this run)`, setAside);
  if (setAside.length === property.requirements.length)
    t.notTested(`every requirement it judges failed earlier in this run (${setAside.join(', ')})`);
  const started = performance.now();
  const cpu = process.cpuUsage();
  // The budget is the check's, its discovery included (fast-check's own limit, longer, is a safety net).
  if (t.cfg.statefulTimeMs !== undefined) property.budget(timeLimitMs - (performance.now() - env.startedAt));
  const reports = await searchProperty(property, {
    numRuns: t.cfg.statefulRuns,
    runSeed: t.cfg.seed,
    timeLimitMs,
    replayed: t.cfg.fuzzVariables[REPLAY_VARIABLE],
    finishRunning: true,
    ignored: new Set(setAside),
  });
  await property.settled();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  t.observe(`stateful ${property.key}`, {
    ...searchStats(reports, t.cfg.statefulRuns),
    replayed: reports[0]!.replayed,
    sequences: notes.sequences,
    notStartedForTheBudget: notes.overBudget,
    cutShortByTheBudget: notes.cutByBudget,
    commands: notes.commands,
    requests: notes.requests,
    seconds: Number(seconds.toFixed(2)),
    requestsPerSecond: Number((notes.requests / Math.max(seconds, 0.001)).toFixed(1)),
    cpuSeconds: Number(((used.user + used.system) / 1e6).toFixed(2)),
  });
  const findings = reports.filter((r) => r.failed && r.violation instanceof StatefulViolation);
  const aborted = reports.filter((r) => r.failed && !findings.includes(r));
  // A search cut short before any sequence completed (the time left after a finding) found nothing.
  if (aborted.length > 0)
    t.observe(
      `stateful ${property.key} searches cut short`,
      aborted.map((r) => r.abort ?? r.violation?.problem),
    );
  for (const report of findings) {
    // Once more, so that the exchanges of the shrunk sequence are the evidence the report keeps.
    await property.replay(report.counterexample as T, { violation: () => undefined }).catch(() => undefined);
    await property.settled();
    const v = report.violation as StatefulViolation;
    t.judge(v.requirement, false, findingMessage(report, t.client.baseUrl));
    t.observe(
      'stateful finding',
      {
        requirement: v.requirement,
        problem: v.problem,
        replay: replayHint(report).replace(/^replay: /, ''),
        steps: stepsDetail(t.client.baseUrl, v.steps),
      },
      v.requirement,
    );
  }
  for (const { requirement, message } of notes.restoreFailures.slice(0, 3)) {
    // Left changed: a failure of the endpoint that could not undo it, or of the check itself.
    const owner = property.requirements.includes(requirement) ? requirement : property.requirements[0]!;
    t.judge(owner, false, `restoring the target after a sequence failed: ${message}`);
  }
  const found = findings.length > 0;
  if (!found && aborted.length === reports.length) t.notTested(`no sequence completed: ${aborted[0]!.abort ?? ''}`);
  for (const [key, value] of notes.observed) t.observe(key, value, 'EP-2');
  if (notes.unjudged.size > 0) t.observe('sequences not judged to their end', [...notes.unjudged].slice(0, 5));
  if (!found && notes.unjudgedSequences >= notes.sequences && notes.sequences > 0) t.notTested([...notes.unjudged][0]!);
  const last = reports.at(-1)!;
  // The budget of a run, not a deviation of the target: recorded, with what did run.
  if ((last.interrupted || notes.overBudget > 0 || notes.cutByBudget > 0) && !last.replayed && !found) {
    t.observe(
      `stateful ${property.key} time limit`,
      `the time budget (${Math.round(timeLimitMs / 1000)} s) held ${notes.sequences} sequence(s) of the ${t.cfg.statefulRuns} asked for${notes.cutByBudget > 0 ? `, ${notes.cutByBudget} of them cut short` : ''}`,
    );
  }
}
