/**
 * Thresholds: a JSON file of rules per scenario, e.g.
 *   { "*": ["failed == 0"], "get-object": ["p99 < 250ms", "rps >= 50"], "events": ["event_p99 < 2s"],
 *     "target": ["sessions >= 16"] }
 * "*" applies to every scenario that has the metric; "target" holds the target-wide capacities.
 * Each rule that is missed is named; any miss makes the run exit 1.
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from '../client/usage-error.js';
import type { ScenarioReport } from './report/model.js';
import type { SessionCapacity } from './capacity/sessions.js';
import type { SubscriberCapacity } from './capacity/subscribers.js';

type Unit = 'ms' | 'count' | 'rate' | 'percent';

interface Metric {
  unit: Unit;
  describe: string;
  of: (r: ScenarioReport) => number | undefined;
}

const latency = (k: 'p50' | 'p90' | 'p99' | 'p999' | 'max' | 'mean'): Metric => ({
  unit: 'ms',
  describe: `${k} latency`,
  of: (r) => (r.requests > 0 ? r.latency[k] : undefined),
});

export const SCENARIO_METRICS: Readonly<Record<string, Metric>> = {
  p50: latency('p50'),
  p90: latency('p90'),
  p99: latency('p99'),
  'p99.9': latency('p999'),
  max: latency('max'),
  mean: latency('mean'),
  rps: { unit: 'rate', describe: 'requests/s', of: (r) => r.requestsPerSecond },
  bytes_per_s: { unit: 'rate', describe: 'bytes/s', of: (r) => r.bytesPerSecond },
  requests: { unit: 'count', describe: 'requests', of: (r) => r.requests },
  failed: { unit: 'count', describe: 'failed requests (non-2xx or no answer)', of: (r) => r.failed },
  errors: { unit: 'count', describe: 'requests without an answer', of: (r) => r.errors },
  non2xx: { unit: 'count', describe: 'non-2xx answers', of: (r) => r.non2xx },
  timeouts: { unit: 'count', describe: 'timeouts', of: (r) => r.timeouts },
  error_rate: { unit: 'percent', describe: 'share of failed requests', of: (r) => 100 * r.errorRate },
  event_p50: { unit: 'ms', describe: 'event delivery p50', of: (r) => r.events?.latency.p50 },
  event_p99: { unit: 'ms', describe: 'event delivery p99', of: (r) => r.events?.latency.p99 },
  event_max: { unit: 'ms', describe: 'event delivery max', of: (r) => r.events?.latency.max },
  events_lost: { unit: 'count', describe: 'lost events', of: (r) => r.events?.lost },
  events_duplicated: { unit: 'count', describe: 'duplicated events', of: (r) => r.events?.duplicated },
  subscribers_live: { unit: 'count', describe: 'live subscribers', of: (r) => r.events?.live },
  capacity: { unit: 'rate', describe: 'sustainable requests/s', of: (r) => r.capacity?.sustainableRps },
  drift_p50: { unit: 'percent', describe: 'p50 drift, first to last window', of: (r) => r.drift?.p50ChangePct },
  drift_p99: { unit: 'percent', describe: 'p99 drift, first to last window', of: (r) => r.drift?.p99ChangePct },
  drift_error_rate: { unit: 'percent', describe: 'error-rate drift in points', of: (r) => r.drift?.errorRateChangePoints },
};

export interface TargetCapacities {
  sessions?: SessionCapacity;
  subscribers?: SubscriberCapacity;
}

const TARGET_METRICS: Readonly<Record<string, { describe: string; of: (t: TargetCapacities) => number | undefined }>> = {
  sessions: { describe: 'concurrent sessions', of: (t) => t.sessions?.sessions },
  subscribers: { describe: 'concurrent subscribers', of: (t) => t.subscribers?.subscribers },
};

const OPS = {
  '<': (a: number, b: number) => a < b,
  '<=': (a: number, b: number) => a <= b,
  '>': (a: number, b: number) => a > b,
  '>=': (a: number, b: number) => a >= b,
  '==': (a: number, b: number) => a === b,
  '!=': (a: number, b: number) => a !== b,
} as const;
type Op = keyof typeof OPS;

export interface Rule {
  /** Scenario name, "*" or "target". */
  scope: string;
  text: string;
  metric: string;
  op: Op;
  /** In the metric's unit: ms for latencies, per cent for rates of errors and drifts. */
  value: number;
}

/** The scope of the implicit "failed == 0" rule (see `evaluate`). */
export const DEFAULT_SCOPE = '(default)';

/** The "failed == 0" every scenario is held to when no rule on failures was given. */
export function isDefaultThreshold(t: { scope: string }): boolean {
  return t.scope === DEFAULT_SCOPE;
}

export interface ThresholdResult {
  scope: string;
  scenario?: string;
  rule: string;
  actual?: number;
  pass: boolean;
  note?: string;
}

const RULE = /^\s*([a-z_][a-z0-9_.]*)\s*(<=|>=|==|!=|<|>)\s*(-?\d+(?:\.\d+)?)\s*(us|µs|ms|s|%|\/s)?\s*$/i;

/** Parses one rule; throws a UsageError naming the rule when it cannot be understood. */
export function parseRule(scope: string, text: string): Rule {
  const m = RULE.exec(text);
  const where = `threshold "${text}" (${scope})`;
  if (!m) throw new UsageError(`The ${where} is not of the form "METRIC OP VALUE[UNIT]", e.g. "p99 < 250ms".`);
  const metric = m[1]!.toLowerCase() === 'p999' ? 'p99.9' : m[1]!.toLowerCase();
  const unit = scope === 'target' ? (metric in TARGET_METRICS ? 'count' : undefined) : SCENARIO_METRICS[metric]?.unit;
  if (!unit) {
    const known = scope === 'target' ? Object.keys(TARGET_METRICS) : Object.keys(SCENARIO_METRICS);
    throw new UsageError(`The ${where} names an unknown metric ${metric}; metrics are ${known.join(', ')}.`);
  }
  let value = Number(m[3]);
  const suffix = m[4]?.toLowerCase();
  if (unit === 'ms') {
    if (suffix === 's') value *= 1000;
    else if (suffix === 'us' || suffix === 'µs') value /= 1000;
    else if (suffix !== undefined && suffix !== 'ms') throw new UsageError(`The ${where} gives a latency in ${suffix}; use us, ms or s.`);
  } else if (suffix !== undefined && !(unit === 'percent' && suffix === '%') && !(unit === 'rate' && suffix === '/s')) {
    throw new UsageError(`The ${where} gives ${metric} a unit it does not have (${suffix}).`);
  }
  return { scope, text: text.trim(), metric, op: m[2] as Op, value };
}

/** Reads a thresholds file; scenario names must be known (a typo must not silently pass). */
export async function loadThresholds(file: string, knownScenarios: readonly string[]): Promise<Rule[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(
      `The thresholds file ${file} cannot be read as JSON (${err instanceof Error ? err.message.replace(/\.$/, '') : String(err)}).`,
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError(`The thresholds file ${file} must hold an object of scenario names to lists of rules.`);
  const rules: Rule[] = [];
  for (const [scope, list] of Object.entries(parsed)) {
    if (scope !== '*' && scope !== 'target' && !knownScenarios.includes(scope)) {
      throw new UsageError(
        `The thresholds file names an unknown scenario ${scope}; scenarios are ${knownScenarios.join(', ')} (and "*", "target").`,
      );
    }
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'string'))
      throw new UsageError(`The thresholds for ${scope} must be a list of strings.`);
    for (const text of list) rules.push(parseRule(scope, text));
  }
  return rules;
}

/**
 * Evaluates the rules. A failed request fails the run unless a rule about failures says how many
 * are acceptable: `failed == 0` applies to every scenario that has no rule on failed, errors,
 * non2xx, timeouts or error_rate.
 */
export function evaluate(rules: readonly Rule[], reports: readonly ScenarioReport[], target: TargetCapacities): ThresholdResult[] {
  const out: ThresholdResult[] = [];
  const failureMetrics = new Set(['failed', 'errors', 'non2xx', 'timeouts', 'error_rate']);
  for (const r of reports) {
    const mine = rules.filter((x) => x.scope === r.scenario || x.scope === '*');
    if (!mine.some((x) => failureMetrics.has(x.metric)))
      out.push(check({ scope: DEFAULT_SCOPE, text: 'failed == 0', metric: 'failed', op: '==', value: 0 }, r.scenario, r.failed));
    for (const rule of mine) {
      const actual = SCENARIO_METRICS[rule.metric]!.of(r);
      if (actual === undefined) {
        // A "*" rule covers only the scenarios that have the metric; a named one must be measured.
        if (rule.scope === '*') continue;
        out.push({
          scope: rule.scope,
          scenario: r.scenario,
          rule: rule.text,
          pass: false,
          note: `${SCENARIO_METRICS[rule.metric]!.describe} was not measured in this run${rule.metric === 'capacity' ? ' (use --find-capacity)' : rule.metric.startsWith('drift') ? ' (use --soak)' : ''}`,
        });
        continue;
      }
      out.push(check(rule, r.scenario, actual));
    }
  }
  const ran = new Set(reports.map((r) => r.scenario));
  for (const rule of rules) {
    if (rule.scope === 'target') {
      const actual = TARGET_METRICS[rule.metric]!.of(target);
      out.push(
        actual === undefined
          ? {
              scope: 'target',
              rule: rule.text,
              pass: false,
              note: `${TARGET_METRICS[rule.metric]!.describe} were not measured (use --find-capacity${rule.metric === 'sessions' ? ' with --profile destructive' : ''})`,
            }
          : check(rule, undefined, actual),
      );
    } else if (rule.scope !== '*' && !ran.has(rule.scope)) {
      out.push({ scope: rule.scope, scenario: rule.scope, rule: rule.text, pass: true, note: 'scenario not run: not evaluated' });
    }
  }
  return out;
}

function check(rule: Rule, scenario: string | undefined, actual: number): ThresholdResult {
  return {
    scope: rule.scope,
    ...(scenario && { scenario }),
    rule: rule.text,
    actual: round3(actual),
    pass: OPS[rule.op](actual, rule.value),
  };
}

/** "get-object: p99 < 250ms missed (actual 312.4)" */
export function describeMiss(t: ThresholdResult): string {
  const where = t.scenario ?? t.scope;
  return `${where}: ${t.rule} ${t.note ? `not checked: ${t.note}` : `missed (actual ${t.actual})`}`;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
