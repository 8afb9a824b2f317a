/**
 * The ranges `load` accepts for its counts, times and rates, in one table: the option parsers refuse
 * a value outside them as the flag is read, and `checkLoadRanges` checks the same table once more
 * for what did not come through those parsers (--timeout, shared with `run`; the target profile;
 * callers in code). A value outside them would otherwise reach an engine and fail there, late and
 * with a stack trace, or be silently bent (a timer above 2^31 ms fires after 1 ms).
 */
import { InvalidArgumentError } from 'commander';
import { UsageError } from '../client/usage-error.js';
import { SCENARIOS, scenarioByName } from '../load/scenarios.js';
import { READ_ENDPOINTS, type ReadEndpoint } from '../load/verify/history.js';
import { grouped, inRange, numberIn, rangeText } from './parse.js';

interface Limit {
  flag: string;
  min: number;
  max: number;
  unit: string;
  fractions?: boolean;
}

const RATE = { min: 0.1, max: 1_000_000, unit: 'requests per second', fractions: true };
const COUNT = { min: 1, max: 10_000 };
const MS = { min: 1, max: 3_600_000, unit: 'milliseconds' };

export const LOAD_LIMITS = {
  duration: { flag: '--duration', min: 1, max: 86_400, unit: 'seconds' },
  connections: { flag: '--connections', ...COUNT, unit: 'connections' },
  maxConnections: { flag: '--max-connections', ...COUNT, unit: 'connections' },
  maxRequests: { flag: '--max-requests', min: 1, max: 1_000_000_000, unit: 'requests' },
  rate: { flag: '--rate', ...RATE },
  maxRate: { flag: '--max-rate', ...RATE },
  capacityP99: { flag: '--capacity-p99', min: 1, max: 600_000, unit: 'milliseconds' },
  maxSessions: { flag: '--max-sessions', ...COUNT, unit: 'sessions' },
  maxSubscribers: { flag: '--max-subscribers', ...COUNT, unit: 'subscribers' },
  subscribers: { flag: '--subscribers', ...COUNT, unit: 'subscribers' },
  soak: { flag: '--soak', min: 1, max: 604_800, unit: 'seconds' },
  window: { flag: '--window', min: 1, max: 86_400, unit: 'seconds' },
  eventTimeout: { flag: '--event-timeout', ...MS },
  timeout: { flag: '--timeout', ...MS },
  minRps: { flag: '--min-rps', ...RATE },
  maxP99: { flag: '--max-p99', ...MS },
  abortErrorRate: { flag: '--abort-error-rate', min: 0, max: 100, unit: 'per cent', fractions: true },
  tolerance: { flag: '--tolerance', min: 0, max: 100, unit: 'per cent', fractions: true },
  verifyEvery: { flag: '--verify-every', min: 1, max: 1_000_000, unit: 'answers' },
  verifySessions: { flag: '--verify-sessions', min: 1, max: 64, unit: 'sessions' },
} satisfies Record<string, Limit>;

export type LimitedFlag = keyof typeof LOAD_LIMITS;

/** An open loop rising from `from` to `to` requests/s in `steps` steps. */
export interface Ramp {
  from: number;
  to: number;
  steps: number;
}

/** Ramp steps: at least a start and an end, at most one a second over the longest --duration. */
export const RAMP_STEPS = { min: 2, max: 1_000 };

function describe(l: Limit): string {
  return rangeText(l.min, l.max, l.unit, l.fractions);
}

/** The option parser of a flag in the table. */
export function limited(flag: LimitedFlag): (value: string) => number {
  const l: Limit = LOAD_LIMITS[flag];
  return numberIn(l.min, l.max, l.unit, l.fractions);
}

/** `--abort-error-rate 5` or `5%`. */
export function percentOf(flag: 'abortErrorRate' | 'tolerance'): (value: string) => number {
  const parse = limited(flag);
  return (value) => parse(value.trim().replace(/%$/, ''));
}

/** `FROM:TO:STEPS`, e.g. 5:50:10. */
export function parseRamp(value: string): Ramp {
  const m = /^\s*(\d+(?:\.\d+)?):(\d+(?:\.\d+)?):(\d+)\s*$/.exec(value);
  const ramp = m && { from: Number(m[1]), to: Number(m[2]), steps: Number(m[3]) };
  if (!ramp || !rampInRange(ramp))
    throw new InvalidArgumentError(
      `expected FROM:TO:STEPS, e.g. 5:50:10, with rates from ${grouped(RATE.min)} to ${grouped(RATE.max)} requests per second and ${grouped(RAMP_STEPS.min)} to ${grouped(RAMP_STEPS.max)} steps.`,
    );
  return ramp;
}

function rampInRange(r: Ramp): boolean {
  return (
    inRange(r.from, RATE.min, RATE.max, true) && inRange(r.to, RATE.min, RATE.max, true) && inRange(r.steps, RAMP_STEPS.min, RAMP_STEPS.max)
  );
}

/** 90, 90s, 30m, 2h → seconds, from 1 s to a week. */
export function parseSoak(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(value.trim());
  const n = m ? Number(m[1]) * { s: 1, m: 60, h: 3600 }[(m[2] ?? 's') as 's' | 'm' | 'h'] : NaN;
  const l = LOAD_LIMITS.soak;
  if (!(n >= l.min && n <= l.max)) throw new InvalidArgumentError('expected a duration from 1 s to 168 h (a week), e.g. 90s, 30m or 2h.');
  return n;
}

/**
 * Every limited value once more, as the command holds it: a value out of range is refused with
 * the flag, the value and the range, before the command starts any work.
 */
export function checkLoadRanges(values: Partial<Record<LimitedFlag, number>> & { ramp?: Ramp }): void {
  for (const key of Object.keys(LOAD_LIMITS) as LimitedFlag[]) {
    const v = values[key];
    const l: Limit = LOAD_LIMITS[key];
    if (v !== undefined && !inRange(v, l.min, l.max, l.fractions))
      throw new UsageError(`${l.flag} ${String(v)} is out of range: expected ${describe(l)}.`);
  }
  if (values.ramp && !rampInRange(values.ramp)) {
    const r = values.ramp;
    throw new UsageError(
      `--ramp ${r.from}:${r.to}:${r.steps} is out of range: expected rates from ${grouped(RATE.min)} to ${grouped(RATE.max)} requests per second and ${grouped(RAMP_STEPS.min)} to ${grouped(RAMP_STEPS.max)} steps.`,
    );
  }
}

/** A target profile's timeout that `load` cannot honour: refused with the profile's own words. */
export function checkProfileTimeouts(file: string, timeouts: { requestMs?: number; eventMs?: number }): void {
  for (const [key, v] of [
    ['requestMs', timeouts.requestMs],
    ['eventMs', timeouts.eventMs],
  ] as const) {
    if (v !== undefined && !inRange(v, MS.min, MS.max))
      throw new UsageError(`The target profile ${file} gives timeouts.${key} ${v}; load accepts ${rangeText(MS.min, MS.max, MS.unit)}.`);
  }
}

export function parseScenarios(value: string): string[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !scenarioByName(n));
  if (unknown.length > 0 || names.length === 0)
    throw new InvalidArgumentError(
      `unknown scenario ${unknown.join(', ') || '(none)'}; scenarios are ${SCENARIOS.map((s) => s.name).join(', ')}.`,
    );
  return names;
}

/** get-object=4,get-attr=3 */
export function parseMix(value: string): Record<string, number> {
  const mix: Record<string, number> = {};
  for (const part of value.split(',')) {
    const m = /^\s*([a-z-]+)\s*=\s*(\d{1,6})\s*$/.exec(part);
    const s = m ? scenarioByName(m[1]!) : undefined;
    if (!m || !s || s.kind !== 'read')
      throw new InvalidArgumentError(
        `expected READ-SCENARIO=WEIGHT,… with weights from 0 to 999,999 and read scenarios (${SCENARIOS.filter((x) => x.kind === 'read')
          .map((x) => x.name)
          .join(', ')}).`,
      );
    mix[m[1]!] = Number(m[2]);
  }
  if (!Object.values(mix).some((w) => w > 0)) throw new InvalidArgumentError('expected at least one weight above 0.');
  return mix;
}

/** `--verify-reads attr,enumerate`: the endpoints the register is read back on. */
export function parseReadEndpoints(value: string): ReadEndpoint[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !READ_ENDPOINTS.includes(n as ReadEndpoint));
  if (unknown.length > 0 || names.length === 0)
    throw new InvalidArgumentError(`unknown read ${unknown.join(', ') || '(none)'}; reads are ${READ_ENDPOINTS.join(', ')}.`);
  return [...new Set(names as ReadEndpoint[])];
}
