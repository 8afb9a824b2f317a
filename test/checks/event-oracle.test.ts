/**
 * The run-wide events oracle (suites/harness/event-oracle.ts): each statement it judges, each
 * shown to fail on the stream that breaks it and to pass on the same stream done right (its
 * positive twin), and the field's ways that are no violation: late delivery in bursts, coerced
 * writes, a subscription opened after a write, a property that changes by itself.
 */
import { describe, expect, test } from 'vitest';
import type { Exchange } from '../../client/evidence.js';
import { stringifyJson } from '../../client/json.js';
import type { ReceivedEvent } from '../../client/subscriber.js';
import type { Cause, LedgerSubscription } from '../../suites/harness/event-ledger.js';
import { filterOf } from '../../suites/harness/event-ledger.js';
import { judgeEvents, type EventOracleRequirement } from '../../suites/harness/event-oracle.js';

const A = '/xyz/mgmt_project/led/groups/enclosure_identify';
const IFACE = 'xyz.mgmt_project.Led.Group';
const B = '/xyz/mgmt_project/control/power_cap';

/** A PUT of A's Asserted sent at `at` (answered 2 ms later) with the value the run saw before it. */
function put(at: number, value: unknown, before: unknown, outcome: Cause['outcome'] = 'accepted', path = A, name = 'Asserted'): Cause {
  const x: Exchange = {
    at: '',
    method: 'PUT',
    url: `${path}/attr/${name}`,
    requestHeaders: {},
    requestBody: stringifyJson({ data: value }),
    status: outcome === 'accepted' ? 200 : outcome === 'refused' ? 400 : 500,
    durationMs: 2,
  };
  return {
    kind: 'put-attr',
    path,
    values: { [name]: value },
    sentAt: at,
    answeredAt: at + 2,
    outcome,
    before: { [name]: before === undefined ? undefined : { value: before, at: at - 5, read: true } },
    x,
  };
}

function changed(at: number, value: unknown, path = A, name = 'Asserted', iface = IFACE): ReceivedEvent {
  const data = { event: 'PropertiesChanged', path, interface: iface, properties: { [name]: value } };
  return { at, seq: 0, data, raw: stringifyJson(data) };
}

function sub(
  filterText: string,
  events: ReceivedEvent[],
  opts: { sentAt?: number; closedAt?: number; role?: string } = {},
): LedgerSubscription {
  const filter = filterOf(filterText);
  return {
    subscriber: { events, closedAt: opts.closedAt } as LedgerSubscription['subscriber'],
    filterText,
    filterSentAt: opts.sentAt ?? 0,
    anonymous: false,
    ...(filter && { filter }),
    ...(opts.role && { role: opts.role }),
  };
}

function failed(subscriptions: LedgerSubscription[], causes: Cause[]): EventOracleRequirement[] {
  const v = judgeEvents({ subscriptions, causes, boundMs: 1000, latencyMs: 300 });
  return [...new Set(v.findings.map((f) => f.requirement))].sort();
}

/** A live watcher: a first event at 1, from a write at 0. */
const primer = put(0, true, false);
const primed = changed(1, true);

describe('events without a change (EV-2)', () => {
  test('an event of a refused write fails; the same write accepted passes', () => {
    expect(failed([sub('{}', [primed, changed(12, false)])], [primer, put(10, false, true, 'refused')])).toEqual(['EV-2']);
    expect(failed([sub('{}', [primed, changed(12, false)])], [primer, put(10, false, true)])).toEqual([]);
  });

  test('an event of a write of the value the property had fails; a write that changed it passes', () => {
    expect(failed([sub('{}', [primed, changed(12, true)])], [primer, put(10, true, true)])).toEqual(['EV-2']);
    expect(failed([sub('{}', [primed, changed(12, false)])], [primer, put(10, false, true)])).toEqual([]);
  });

  test('a coerced write (another JSON type, accepted) explains what its window shows', () => {
    const coerced = put(10, 'not-a-boolean', true);
    expect(failed([sub('{}', [primed, changed(12, true), changed(30, false)])], [primer, coerced, put(20, false, true)])).toEqual([]);
  });
});

describe('duplicates and omissions (EV-8)', () => {
  test('one write, two events: fails; one event: passes', () => {
    const w = put(10, false, true);
    expect(failed([sub('{}', [primed, changed(12, false), changed(13, false)])], [primer, w])).toEqual(['EV-8']);
    expect(failed([sub('{}', [primed, changed(12, false)])], [primer, w])).toEqual([]);
  });

  test('a change another subscription received that a live one of the same object lost fails EV-8', () => {
    const writes = [primer, put(10, false, true), put(20, true, false)];
    const got = sub('{}', [primed, changed(12, false), changed(22, true)]);
    const lost = sub(`{"paths":["${A}"]}`, [primed, changed(22, true)]);
    expect(failed([got, lost], writes)).toEqual(['EV-8']);
    expect(failed([got, sub(`{"paths":["${A}"]}`, [primed, changed(12, false), changed(22, true)])], writes)).toEqual([]);
  });

  test('a live subscription that never receives the object another receives fails its filter', () => {
    const writes = [put(0, 7, 6, 'accepted', B, 'PowerCap'), primer, put(10, false, true)];
    const other = changed(1, 7, B, 'PowerCap', 'xyz.mgmt_project.Control.Power.Cap');
    const all = sub('{}', [other, primed, changed(12, false)]);
    const both = sub(`{"paths":["${B}","${A}"]}`, [other]);
    expect(failed([all, both], writes)).toEqual(['EV-4']);
    expect(failed([all, sub(`{"paths":["${B}","${A}"]}`, [other, primed, changed(12, false)])], writes)).toEqual([]);
  });

  test('a silent subscription is owed each write whose event came before its answer: two owed fail its filter', () => {
    // The first write's event arrives before its answer is read: the second write is still a known change.
    const first = { ...put(10, true, false), answeredAt: 15 };
    const writes = [first, { ...put(20, false, undefined), before: { Asserted: { value: true, at: 15, read: false } } }];
    const all = sub('{}', [changed(13, true), changed(21, false)]);
    expect(failed([all, sub(`{"paths":["${A}"]}`, [])], writes)).toEqual(['EV-4']);
    expect(failed([all, sub(`{"paths":["${A}"]}`, [changed(13, true), changed(21, false)])], writes)).toEqual([]);
  });

  test('a subscription that delivers attribute writes of an object but never its whole-object writes fails its filter', () => {
    const whole = (at: number, v: boolean) => ({ ...put(at, v, !v), kind: 'put-object' as const });
    const writes = [primer, put(10, false, true), whole(20, true), whole(30, false)];
    const all = sub('{}', [primed, changed(12, false), changed(22, true), changed(32, false)]);
    const paths = (events: ReceivedEvent[]) => sub(`{"paths":["${A}"]}`, [primed, changed(12, false), ...events]);
    expect(failed([all, paths([])], writes)).toEqual(['EV-4']);
    // One of the two lost: a lost event, not a filter.
    expect(failed([all, paths([changed(32, false)])], writes)).toEqual(['EV-8']);
    expect(failed([all, paths([changed(22, true), changed(32, false)])], writes)).toEqual([]);
  });

  test('the value a property held, reported again after a later write, is a change that never happened (EV-2)', () => {
    const writes = [primer, put(10, false, true), put(20, true, false)];
    expect(failed([sub('{}', [primed, changed(12, false), changed(21, false), changed(22, true)])], writes)).toEqual(['EV-2']);
    expect(failed([sub('{}', [primed, changed(12, false), changed(22, true)])], writes)).toEqual([]);
  });

  test('so is an integer beyond 2^53 reported again (its finding names it exactly)', () => {
    const [big, next] = [18446744073709551615n, 18446744073709551614n];
    const writes = [put(0, big, 7n, 'accepted', B, 'PowerCap'), put(10, next, big, 'accepted', B, 'PowerCap')];
    const frames = [changed(1, big, B, 'PowerCap'), changed(11, big, B, 'PowerCap'), changed(12, next, B, 'PowerCap')];
    const v = judgeEvents({ subscriptions: [sub('{}', frames)], causes: writes, boundMs: 1000, latencyMs: 300 });
    expect(v.findings.map((f) => f.requirement)).toEqual(['EV-2']);
    expect(v.findings[0]!.problem).toContain('PowerCap 18446744073709551615 again');
  });

  test('a write nobody received that a later read showed applied fails EV-8', () => {
    const silent = put(10, false, true);
    const next = { ...put(30, true, false), before: { Asserted: { value: false, at: 25, read: true } } };
    expect(failed([sub('{}', [primed, changed(32, true)])], [primer, silent, next])).toEqual(['EV-8']);
  });

  test('a subscription not yet live, or closed before the bound, owes nothing', () => {
    const w = put(10, false, true);
    expect(failed([sub('{}', [changed(1, true)], { closedAt: 11 })], [primer, w])).toEqual([]);
    expect(failed([sub('{}', [changed(30, true)], { sentAt: 20 }), sub('{}', [primed, changed(12, false)])], [primer, w])).toEqual([]);
  });
});

describe('the field is no violation', () => {
  test('events late and in one burst, in order, are each their own write', () => {
    const writes = [primer, put(10, false, true), put(20, true, false), put(30, false, true), put(40, true, false)];
    const burst = [changed(900, false), changed(900, true), changed(900, false), changed(900, true)];
    expect(failed([sub('{}', [primed, ...burst])], writes)).toEqual([]);
  });

  test('a socket read late shows an older value: a write of that value after it is no write of the value held', () => {
    const writes = [put(0, true, false), put(10, false, true), put(20, true, undefined)];
    const all = sub('{}', [changed(1, true), changed(11, false), changed(21, true)]);
    // Its first event comes after the second write was answered: what it shows is the first write's.
    const slow = sub(`{"paths":["${A}"]}`, [changed(15, true), changed(22, false), changed(23, true)]);
    expect(failed([all, slow], writes)).toEqual([]);
  });

  test('a subscription opened after a write is not owed it, nor does the write explain its later events', () => {
    const writes = [primer, put(10, false, true), put(100, true, false)];
    expect(
      failed([sub('{}', [primed, changed(12, false), changed(102, true)]), sub('{}', [changed(102, true)], { sentAt: 50 })], writes),
    ).toEqual([]);
  });

  test('a property that shows values no write explains is set aside, not judged', () => {
    const v = judgeEvents({
      subscriptions: [sub('{}', [primed, changed(12, false), changed(5000, 'blinking')])],
      causes: [primer, put(10, false, true), put(20, false, false)],
      boundMs: 1000,
    });
    expect(v.findings).toEqual([]);
    expect(v.setAside).toEqual([`${A} Asserted`]);
  });
});

describe('every message (EV-7) and every filter', () => {
  test('a message of another kind fails EV-7; the two kinds pass', () => {
    const ack = { at: 5, seq: 0, data: { event: 'Subscribed' }, raw: '{"event":"Subscribed"}' };
    expect(failed([sub('{}', [ack])], [])).toEqual(['EV-7']);
    expect(failed([sub('{}', [primed])], [primer])).toEqual([]);
  });

  test('an event a filter never admits fails its requirement; one it admits passes', () => {
    const otherIface = changed(12, 7, B, 'PowerCap', 'xyz.mgmt_project.Control.Power.Cap');
    expect(failed([sub(`{"paths":["${A}"]}`, [otherIface])], [])).toEqual(['EV-4']);
    expect(failed([sub(`{"interfaces":["${IFACE}"]}`, [otherIface])], [])).toEqual(['EV-5']);
    expect(failed([sub(`{"paths":["${A}"],"interfaces":["${IFACE}"]}`, [otherIface])], [])).toEqual(['EV-6']);
    expect(failed([sub(`{"paths":["${B}"],"interfaces":["${IFACE}"]}`, [otherIface])], [])).toEqual([]);
  });

  test('events before the filter was sent are not judged by it', () => {
    const otherIface = changed(12, 7, B, 'PowerCap', 'xyz.mgmt_project.Control.Power.Cap');
    expect(failed([sub(`{"paths":["${A}"]}`, [otherIface], { sentAt: 20 })], [])).toEqual([]);
  });
});
