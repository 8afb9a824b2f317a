/**
 * The events suite's wording and judging of single events and streams: the shape of one
 * PropertiesChanged (EV-2), how the stream judge's verdict on a measured stream reads, and how a
 * socket's opening ended.
 */
import type { ConnectOutcome, ReceivedEvent } from '../../client/subscriber.js';
import { ensure, show } from '../harness/assert.js';
import type { CheckContext } from '../harness/check.js';
import { expectSchema } from '../harness/schema.js';
import { streamOf, type Matrix, type WriteStream } from './event-matrix.js';
import { interfaceProblem } from './engine/filters.js';
import { brief, type Subscription } from './engine/subscription.js';
import { isPropertiesChanged, type AttrWriter } from './events.js';

/** Shape of one PropertiesChanged (EV-2): schema, path, interface, and the property with a value written. */
export function expectPropertiesChanged(t: CheckContext, event: ReceivedEvent, writer: AttrWriter): void {
  const what = `PropertiesChanged #${event.seq} ${brief(event.raw, 160)}`;
  expectSchema(t, 'propertiesChanged', event.data, what);
  ensure(isPropertiesChanged(event.data) && event.data.path === writer.path, `${what}: path is not ${writer.path}`);
  const problem = interfaceProblem(event.data.interface);
  ensure(!problem, `${what}: ${problem}`);
  ensure(Object.hasOwn(event.data.properties, writer.name), `${what}: properties lack ${writer.name}`);
  const value = writer.valueIn(event.data);
  ensure(
    writer.wrote(value),
    `${what}: ${writer.name} is ${show(value)}, which was never written (written: ${show(writer.writes.map((w) => w.value))})`,
  );
}

/** The requirement each kind of finding on a measured stream breaks. */
export const BREAKS = { missing: 'EV-8', extra: 'EV-8', order: 'EV-9' } as const;

/** How a measured stream falls short of its writes, in the words of EV-8 (missing, extra) and EV-9 (order). */
export function streamProblems(stream: WriteStream, label: string): Partial<Record<keyof typeof BREAKS, string>> {
  const { written, received, judgement } = stream;
  const out: Partial<Record<keyof typeof BREAKS, string>> = {};
  const seen = `written ${show(written, 400)}, received ${show(received, 400)}`;
  const missing = judgement.missing.map((c) => (c.kind === 'PropertiesChanged' ? c.value : c.path));
  if (missing.length > 0)
    out.missing = `${label}: ${missing.length} of ${written.length} write(s) never produced an event (${show(missing)}); ${seen}`;
  const extra = judgement.problems.filter((p) => p.requirement !== 'EV-9');
  if (extra.length > 0)
    out.extra = `${label}: ${extra.length} event(s) more than writes, duplicated or never written (${extra.map((p) => p.message).join('; ')}); ${seen}`;
  const order = judgement.problems.find((p) => p.requirement === 'EV-9');
  if (order) out.order = `${label}: ${order.message}; ${seen}`;
  return out;
}

/** Fails with the findings that break `requirement` on each writer's measured stream through `sub`. */
export function expectStreams(m: Matrix, sub: Subscription, writers: readonly AttrWriter[], requirement: 'EV-8' | 'EV-9'): void {
  const problems = writers.flatMap((w) => {
    const p = streamProblems(streamOf(m, sub, w), w.label);
    return (Object.keys(p) as (keyof typeof BREAKS)[]).filter((k) => BREAKS[k] === requirement).map((k) => p[k]!);
  });
  ensure(problems.length === 0, problems.join('; '));
}

/** How a socket's connection attempt ended, as a phrase. */
export function describeOutcome(outcome: ConnectOutcome): string {
  if (outcome.kind === 'refused') return `handshake refused (${outcome.status ?? 'no status'})`;
  if (outcome.kind === 'closed') return `closed with code ${outcome.code}${outcome.reason ? ` "${outcome.reason}"` : ' and no reason'}`;
  return 'no answer: the socket stayed open and silent';
}
