/**
 * The one stream judge as the events suite feeds it: one attribute's writes as changes, what a
 * subscription received of them. The simulator's event faults, each as the stream it makes.
 */
import { describe, expect, test } from 'vitest';
import type { ReceivedEvent } from '../../client/subscriber.js';
import type { Change } from '../../suites/events/engine/filters.js';
import { addedUnion, judgeStream, withEarlier } from '../../suites/events/engine/judge.js';

const P = '/xyz/ns/inventory/system';

/**
 * Writes at 0, 1, 2 … ms; each event at the time given, or (a bare value) back to back from 100 ms
 * on, after every write was sent, as on a target whose events come late.
 */
interface Timed {
  value: unknown;
  at: number;
}

function judge(written: unknown[], received: unknown[], filter: object = { paths: [P] }) {
  const changes = written.map((value, i): Change => ({ no: i + 1, kind: 'PropertiesChanged', path: P, name: 'AssetTag', value, after: i }));
  const events = received.map((r, seq): ReceivedEvent => {
    const timed = r !== null && typeof r === 'object' && 'at' in r ? (r as Timed) : undefined;
    const data = { event: 'PropertiesChanged', path: P, interface: 'xyz.ns.Tag', properties: { AssetTag: timed ? timed.value : r } };
    return { at: timed ? timed.at : 100 + seq, seq, data, raw: JSON.stringify(data) };
  });
  const j = judgeStream({
    what: 'S',
    filter,
    expected: changes.map((change) => ({ change, admission: 'must' })),
    received: events,
    since: 1,
    log: changes,
    tracked: () => true,
  });
  const of = (requirement: string) => j.problems.filter((p) => p.requirement === requirement);
  return {
    missing: j.missing.map((c) => c.no),
    duplicated: of('EV-8').length,
    order: of('EV-9'),
    never: of('EV-2').length,
    arrived: j.arrived,
  };
}

describe('the stream judge on the events suite’s writes', () => {
  const distinct = ['v1', 'v2', 'v3', 'v4', 'v5', 'v6'];

  test('the writes in order, once each: nothing to report, each event matched to its write', () => {
    const j = judge(distinct, distinct);
    expect(j).toMatchObject({ missing: [], duplicated: 0, order: [], never: 0 });
    expect([...j.arrived.keys()]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  test('pairs swapped (events-reordered): an order problem, nothing missing or duplicated', () => {
    const j = judge(distinct, ['v2', 'v1', 'v4', 'v3', 'v6', 'v5']);
    expect(j.order[0]!.message).toMatch(/change #1 arrived after that of the later change #2/);
    expect(j).toMatchObject({ missing: [], duplicated: 0 });
  });

  test('every third dropped (events-dropped): missing, no order problem', () => {
    expect(judge(distinct, ['v1', 'v2', 'v4', 'v5'])).toMatchObject({ missing: [3, 6], duplicated: 0, order: [] });
  });

  test('each pushed twice (events-duplicated): duplicates, nothing missing', () => {
    const j = judge(
      distinct,
      distinct.flatMap((v) => [v, v]),
    );
    expect(j).toMatchObject({ missing: [], duplicated: 6, order: [] });
  });

  test('two alternating values sent back to back: a swap is an order problem; a duplicate, a drop are not', () => {
    const written = [0, 1, 0, 1, 0, 1];
    expect(judge(written, [1, 0, 1, 0, 1, 0]).order).not.toEqual([]);
    expect(judge(written, [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1])).toMatchObject({ missing: [], duplicated: 6, order: [] });
    // Every third dropped: the 1 after a 1 is taken for a repeat (it could be one): missing and extra, never order.
    expect(judge(written, [0, 1, 1, 0])).toMatchObject({ duplicated: 1, order: [] });
  });

  test('two alternating values, each event before the next write: a drop is missing, the next of the value matched', () => {
    // Writes at 0 … 5 ms, the events of #1, #2, #4, #5 each half a millisecond after its write.
    const j = judge(
      [0, 1, 0, 1, 0, 1],
      [
        { value: 0, at: 0.5 },
        { value: 1, at: 1.5 },
        { value: 1, at: 3.5 },
        { value: 0, at: 4.5 },
      ],
    );
    expect(j).toMatchObject({ missing: [3, 6], duplicated: 0, order: [] });
  });

  test('a value never written is reported as such, not as an order problem', () => {
    expect(judge(['v1', 'v2'], ['v1', 'other', 'v2'])).toMatchObject({ missing: [], never: 1, order: [] });
  });

  test('a D-Bus boolean may travel as 1/0 where it was written as true/false', () => {
    expect(judge([true, false], [1, 0])).toMatchObject({ missing: [], duplicated: 0, order: [], never: 0 });
  });

  test('an event that arrived before its write was sent is not that write’s', () => {
    expect(judge(['v1'], [{ value: 'v1', at: -1 }])).toMatchObject({ missing: [1], duplicated: 1 });
  });
});

describe('the union of one new object’s InterfacesAdded signals', () => {
  const signal = (interfaces: unknown) => ({ event: 'InterfacesAdded', path: P, interfaces });

  test('the properties of every signal together, a later value winning; a repeated set of interfaces counts once', () => {
    const union = addedUnion([
      signal({ 'xyz.ns.Version': { Version: '1', Purpose: 'BMC' } }),
      signal({ 'xyz.ns.Activation': { Activation: 'Ready' }, 'xyz.ns.Version': { Version: '2' } }),
      signal({ 'xyz.ns.Version': { Extra: true } }),
    ]);
    expect(union.signals).toBe(2);
    expect(union.properties).toEqual({ Version: '2', Purpose: 'BMC', Activation: 'Ready' });
  });

  test('a signal or an interface that is no map carries nothing', () => {
    const union = addedUnion([signal('xyz.ns.Version'), signal({ 'xyz.ns.Version': 'Version' }), null, signal({ 'xyz.ns.A': { A: 1 } })]);
    expect(union.properties).toEqual({ A: 1 });
    expect(union.signals).toBe(2);
  });
});

describe('the writer’s earlier writes (its priming), late on a target that delivers in bursts', () => {
  const change = (no: number, value: unknown, after: number): Change => ({
    no,
    kind: 'PropertiesChanged',
    path: P,
    name: 'Asserted',
    value,
    after,
  });
  const event = (value: unknown, seq: number): ReceivedEvent => {
    const data = { event: 'PropertiesChanged', path: P, interface: 'xyz.ns.Led', properties: { Asserted: value } };
    return { at: 100 + seq, seq, data, raw: JSON.stringify(data) };
  };
  /** The priming write (1) at -10 ms, then 0, 1, 0, 1 measured; everything arrives after the last write, in a burst. */
  const priming = [change(0, 1, -10)];
  const measured = [0, 1, 0, 1].map((v, i) => change(i + 1, v, i));
  const judged = (earlier: Change[], received: unknown[]) =>
    judgeStream({
      what: 'S',
      filter: { paths: [P] },
      ...withEarlier({ paths: [P] }, earlier, measured),
      received: received.map(event),
      tracked: () => true,
    });

  test('the priming event that lands in the measurement is the priming write’s, not a duplicate of a measured one', () => {
    const j = judged(priming, [1, 0, 1, 0, 1]);
    expect(j.problems).toEqual([]);
    expect(j.missing).toEqual([]);
    // Without the earlier write, the same stream read a duplicate (EV-8): the false FAIL.
    const blind = judged([], [1, 0, 1, 0, 1]);
    expect(blind.problems.map((p) => p.requirement)).toContain('EV-8');
  });

  test('the priming event that arrived before the measurement is owed nothing; one measured event lost is still missing', () => {
    expect(judged(priming, [0, 1, 0, 1])).toMatchObject({ missing: [], problems: [] });
    expect(judged(priming, [1, 0, 1, 0]).missing.map((c) => c.no)).toEqual([4]);
  });

  test('the priming event after a measured event of the object is out of order (EV-9)', () => {
    const values = ['b', 'c', 'd'].map((v, i) => change(i + 1, v, i));
    const j = judgeStream({
      what: 'S',
      filter: { paths: [P] },
      ...withEarlier({ paths: [P] }, [change(0, 'a', -10)], values),
      received: ['b', 'a', 'c', 'd'].map(event),
      tracked: () => true,
    });
    expect(j.problems.map((p) => p.requirement)).toEqual(['EV-9']);
  });
});
