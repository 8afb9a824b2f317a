/**
 * WebSocket subscriber capacity: open subscriptions one by one until one is refused or closed, or
 * an earlier one is closed, up to a bound; then count how many are still open a moment later (held
 * at once) and how many of them deliver (a write the filter admits, when a writable attribute is at
 * hand). All are closed afterwards.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BmcClient } from '../../client/http.js';
import { EventSubscriber } from '../../client/subscriber.js';
import { attrPath } from '../write-mix.js';
import type { ValueCycle } from '../values.js';

export interface SubscriberCapacity {
  /** Subscriptions still open together once the probe stopped opening more and the target had a moment to close any. */
  subscribers: number;
  stoppedBy: 'refused' | 'closed' | 'evicted' | 'bound' | 'interrupted';
  detail: string;
  bound: number;
  /** The filter every subscription sent. */
  filter: { paths: string[] };
  /** How many of them received the check write's event; absent without a writable attribute. */
  delivering?: number;
}

/** How long a server is given to close a socket it accepted (after the first one, and after the last). */
const SETTLE_MS = 500;

export async function measureSubscriberCapacity(
  client: BmcClient,
  opts: { bound: number; namespace: string; probe?: ValueCycle; eventTimeoutMs: number; signal?: AbortSignal },
): Promise<SubscriberCapacity> {
  const subs: EventSubscriber[] = [];
  // A filter that names a path, whatever the profile: bmcweb closes one without paths ("Unable to
  // find paths in json data"), and a filter refused is no measure of how many subscribers it holds.
  const filter = { paths: [opts.probe?.path ?? `/xyz/${opts.namespace}`] };
  let stoppedBy: SubscriberCapacity['stoppedBy'] = 'bound';
  let detail = `all ${opts.bound} subscriptions stayed open`;
  try {
    for (let i = 0; i < opts.bound; i++) {
      if (opts.signal?.aborted) {
        stoppedBy = 'interrupted';
        detail = `interrupted after ${subs.length} subscriptions`;
        break;
      }
      // The first is watched a while: a target that closes this filter's sockets shows it here, as such.
      const outcome = await EventSubscriber.tryOpen(client, filter, { settleMs: i === 0 ? SETTLE_MS : 0 });
      if (outcome.kind !== 'open') {
        stoppedBy = outcome.kind;
        detail =
          outcome.kind === 'refused'
            ? `subscription ${i + 1} was refused${outcome.status ? ` (${outcome.status})` : ''}`
            : `subscription ${i + 1} was closed at once (${closeText(outcome)})`;
        break;
      }
      subs.push(outcome.subscriber);
      const gone = subs.findIndex((s) => s.closed);
      if (gone >= 0) {
        stoppedBy = 'evicted';
        // A close frame can arrive after the next handshake: say what was seen, not which opening caused it.
        detail = `subscription ${gone + 1} was closed (${closeText(subs[gone]!.closeInfo!)}) by the time subscription ${i + 1} had opened`;
        break;
      }
    }
    // A server may close sockets a moment after accepting them.
    await sleep(SETTLE_MS);
    const open = subs.filter((s) => !s.closed);
    if (stoppedBy === 'bound' && open.length < subs.length) {
      stoppedBy = 'closed';
      detail = `${subs.length - open.length} of ${subs.length} subscriptions were closed within ${SETTLE_MS} ms (${closeText(subs.find((s) => s.closed)!.closeInfo!)})`;
    } else if (stoppedBy === 'evicted') detail += `; ${open.length} of the ${subs.length} opened stayed open`;
    const result: SubscriberCapacity = { subscribers: open.length, stoppedBy, detail, bound: opts.bound, filter };
    if (opts.probe && !opts.signal?.aborted) result.delivering = await countDelivering(client, open, opts.probe, opts.eventTimeoutMs);
    return result;
  } finally {
    await Promise.all(subs.map((s) => s.close()));
  }
}

/** 'code 1000, "Unable to find paths in json data"' */
function closeText(c: { code: number; reason: string }): string {
  return `code ${c.code}${c.reason ? `, "${c.reason}"` : ''}`;
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
