/**
 * Events under load (load --verify): a subscription filtered on the register's path must carry one
 * PropertiesChanged for each write of the register that was accepted (EV-8: none lost, none
 * duplicated), in the order the writes happened where real time orders them (EV-9). Only a register
 * whose writes have distinct values can be judged so: each event then names its write.
 */
import type { ReceivedEvent } from '../../client/subscriber.js';
import type { RegisterOperation } from './history.js';
import { valueKey } from './history.js';

export interface EventCount {
  /** Accepted writes, each owed one event. */
  expected: number;
  delivered: number;
  lost: number;
  duplicated: number;
  /** Two writes ordered in real time whose events came the other way round. */
  reordered: number;
  /** One lost, duplicated or reordered value, for the report. */
  example?: string;
}

/** The register's value in a PropertiesChanged message, if the message is one for it. */
export function changedValue(data: unknown, path: string, name: string): { value: unknown } | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const e = data as { event?: unknown; path?: unknown; properties?: unknown };
  if (e.event !== 'PropertiesChanged' || e.path !== path || e.properties === null || typeof e.properties !== 'object') return undefined;
  const props = e.properties as Record<string, unknown>;
  return Object.hasOwn(props, name) ? { value: props[name] } : undefined;
}

export function countEvents(
  writes: readonly RegisterOperation[],
  events: readonly ReceivedEvent[],
  path: string,
  name: string,
): EventCount {
  const accepted = writes.filter((w) => w.kind === 'write' && w.ok);
  const owed = new Map(accepted.map((w) => [valueKey(w.value), w]));
  const seen = new Map<string, number>();
  const arrival: RegisterOperation[] = [];
  let example: string | undefined;
  for (const ev of events) {
    const v = changedValue(ev.data, path, name);
    if (!v) continue;
    const key = valueKey(v.value);
    seen.set(key, (seen.get(key) ?? 0) + 1);
    const w = owed.get(key);
    if (w && seen.get(key) === 1) arrival.push(w);
    if (seen.get(key) === 2) example ??= `the change to ${key} came twice`;
  }
  let lost = 0;
  for (const [key] of owed) {
    if (!seen.has(key)) {
      lost++;
      example ??= `no event for the accepted write of ${key}`;
    }
  }
  const duplicated = [...seen.entries()].filter(([k]) => owed.has(k)).reduce((n, [, c]) => n + Math.max(0, c - 1), 0);
  let reordered = 0;
  // An event arriving after one whose write began only once its own write had answered.
  let latestInvoked = -Infinity;
  for (const w of arrival) {
    if (w.returnedAt < latestInvoked) {
      reordered++;
      example ??= `the change to ${valueKey(w.value)} came after a change written later`;
    }
    latestInvoked = Math.max(latestInvoked, w.invokedAt);
  }
  const delivered = [...seen.entries()].filter(([k]) => owed.has(k)).reduce((n, [, c]) => n + c, 0);
  return { expected: accepted.length, delivered, lost, duplicated, reordered, ...(example && { example }) };
}
