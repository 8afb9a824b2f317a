/**
 * WebSocket subscriber capacity: open subscriptions one by one until one is refused or closed, or
 * an earlier one is closed, up to a bound; then check how many still deliver (a write the filter
 * admits, when a writable attribute is at hand). All are closed afterwards.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BmcClient } from '../../client/http.js';
import { EventSubscriber } from '../../client/subscriber.js';
import { attrPath } from '../write-mix.js';
import type { ValueCycle } from '../values.js';

export interface SubscriberCapacity {
  /** Subscriptions open at once before the first refusal or loss (or the bound). */
  subscribers: number;
  stoppedBy: 'refused' | 'closed' | 'evicted' | 'bound' | 'interrupted';
  detail: string;
  bound: number;
  /** How many of them received the check write's event; absent without a writable attribute. */
  delivering?: number;
}

const SETTLE_MS = 500;

export async function measureSubscriberCapacity(
  client: BmcClient,
  opts: { bound: number; probe?: ValueCycle; eventTimeoutMs: number; signal?: AbortSignal },
): Promise<SubscriberCapacity> {
  const subs: EventSubscriber[] = [];
  const filter = opts.probe ? { paths: [opts.probe.path] } : {};
  let stoppedBy: SubscriberCapacity['stoppedBy'] = 'bound';
  let detail = `all ${opts.bound} subscriptions stayed open`;
  try {
    for (let i = 0; i < opts.bound; i++) {
      if (opts.signal?.aborted) {
        stoppedBy = 'interrupted';
        detail = `interrupted after ${subs.length} subscriptions`;
        break;
      }
      const outcome = await EventSubscriber.tryOpen(client, filter, { settleMs: 0 });
      if (outcome.kind !== 'open') {
        stoppedBy = outcome.kind;
        detail =
          outcome.kind === 'refused'
            ? `subscription ${i + 1} was refused${outcome.status ? ` (${outcome.status})` : ''}`
            : `subscription ${i + 1} was closed at once (code ${outcome.code})`;
        break;
      }
      subs.push(outcome.subscriber);
      const gone = subs.findIndex((s) => s.closed);
      if (gone >= 0) {
        stoppedBy = 'evicted';
        detail = `opening subscription ${i + 1} closed subscription ${gone + 1}`;
        break;
      }
    }
    // A server may close sockets a moment after accepting them.
    await sleep(SETTLE_MS);
    const open = subs.filter((s) => !s.closed);
    if (stoppedBy === 'bound' && open.length < subs.length) {
      stoppedBy = 'closed';
      detail = `${subs.length - open.length} of ${subs.length} subscriptions were closed within ${SETTLE_MS} ms`;
    }
    const result: SubscriberCapacity = { subscribers: open.length, stoppedBy, detail, bound: opts.bound };
    if (opts.probe && !opts.signal?.aborted) result.delivering = await countDelivering(client, open, opts.probe, opts.eventTimeoutMs);
    return result;
  } finally {
    await Promise.all(subs.map((s) => s.close()));
  }
}

async function countDelivering(client: BmcClient, open: EventSubscriber[], probe: ValueCycle, timeoutMs: number): Promise<number> {
  const marks = open.map((s) => s.mark());
  const res = await client.put(attrPath(probe.path, probe.name), probe.next());
  if (res.status !== 200) return 0;
  const got = await Promise.all(
    open.map((s, i) =>
      s
        .waitFor((d) => (d as { path?: unknown } | undefined)?.path === probe.path, timeoutMs, { from: marks[i] })
        .then(
          () => true,
          () => false,
        ),
    ),
  );
  return got.filter(Boolean).length;
}
