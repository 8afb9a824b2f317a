/** Parsers for option values: each rejects a bad value with one plain sentence. */
import { InvalidArgumentError } from 'commander';
import { parseRouteLatency, type RouteLatency } from '../simulator/route-latency.js';
import { AREAS, isRequirementId, type Area } from '../catalogue/requirements.js';
import { PROFILES, parseWritable, type Profile, type WritableAttribute } from '../runner/config.js';
import type { MinJudged } from '../client/results.js';

/** A count, a time or a bound: zero would mean "nothing" or "no time", never what was asked. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1.');
  return n;
}

/** Where zero means something: a port picked by the system, no added objects, no delay, seed 0. */
export function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number (0 or more).');
  return n;
}

export function port(value: string): number {
  const n = wholeNumber(value);
  if (n > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535.');
  return n;
}

/** `--namespace`: the vendor word is a D-Bus path element, on any target (the simulator refuses another with a stack trace). */
export function namespace(value: string): string {
  if (!/^[A-Za-z0-9_]+$/.test(value)) throw new InvalidArgumentError('expected a D-Bus path element: letters, digits and _.');
  return value;
}

export function profile(value: string): Profile {
  if (!(PROFILES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${PROFILES.join(', ')}.`);
  }
  return value as Profile;
}

export function areaList(value: string): Area[] {
  const areas = value
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const bad = areas.filter((a) => !(AREAS as readonly string[]).includes(a));
  if (bad.length > 0 || areas.length === 0) {
    throw new InvalidArgumentError(`unknown area ${bad.join(', ') || '(none)'}; areas are ${AREAS.join(', ')}.`);
  }
  return areas as Area[];
}

export function requirementList(value: string): string[] {
  const ids = value
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const bad = ids.filter((id) => !isRequirementId(id));
  if (bad.length > 0 || ids.length === 0) throw new InvalidArgumentError(`unknown requirement ${bad.join(', ') || '(none)'}.`);
  return ids;
}

/** `--route-latency enumerate=3000` (repeatable): a route's extra time on the simulator; a route given twice takes the last. */
export function routeLatency(value: string, previous: RouteLatency = {}): RouteLatency {
  const parsed = parseRouteLatency(value);
  if (typeof parsed === 'string') throw new InvalidArgumentError(parsed);
  return { ...previous, [parsed.route]: parsed.ms };
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `--writable /xyz/ns/led/groups/x:Asserted` or with values `...:State=A|B|C`. */
export function writable(value: string, previous: WritableAttribute[] = []): WritableAttribute[] {
  const attr = parseWritable(value);
  if (!attr) throw new InvalidArgumentError('expected PATH:ATTRIBUTE or PATH:ATTRIBUTE=VALUE|VALUE.');
  return [...previous, attr];
}

/** `--tftp-server host[:port]` */
export function tftpServer(value: string): string {
  if (!/^[A-Za-z0-9.\-:[\]]+$/.test(value)) throw new InvalidArgumentError('expected HOST or HOST:PORT.');
  return value;
}

/** `--min-judged`: a count of requirements (`40`) or a share of the selected ones (`80%`). */
export function minJudged(value: string): MinJudged {
  const share = /^(\d+(?:\.\d+)?)%$/.exec(value.trim());
  if (share) {
    const percent = Number(share[1]);
    if (percent <= 0 || percent > 100) throw new InvalidArgumentError('expected a share from 1% to 100%.');
    return { percent };
  }
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1)
    throw new InvalidArgumentError('expected a number of requirements (at least 1) or a share such as 80%.');
  return { count };
}

/** "a whole number of seconds, at least 1 and at most 86,400": what a range parser accepts, for its refusals. */
export function rangeText(min: number, max: number, unit: string, fractions = false): string {
  return `${fractions ? 'a number' : 'a whole number'} of ${unit}, at least ${grouped(min)} and at most ${grouped(max)}`;
}

/** True when `n` is a number `numberIn` with the same bounds would accept. */
export function inRange(n: number, min: number, max: number, fractions = false): boolean {
  return Number.isFinite(n) && (fractions || Number.isInteger(n)) && n >= min && n <= max;
}

/**
 * A number from `min` to `max` (whole unless `fractions`), in `unit`: the refusal names the range,
 * so a user sees at once what would have been accepted.
 */
export function numberIn(min: number, max: number, unit: string, fractions = false): (value: string) => number {
  return (value: string): number => {
    const n = value.trim() === '' ? NaN : Number(value);
    if (!inRange(n, min, max, fractions)) throw new InvalidArgumentError(`expected ${rangeText(min, max, unit, fractions)}.`);
    return n;
  };
}

/** 86400 → "86,400": ranges read at a glance. */
export function grouped(n: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 3 });
}
