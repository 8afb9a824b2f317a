/**
 * Event faults at a site (simulator/event-site-faults.ts): each breaks its statement for the events
 * of one cause of change pushed to subscriptions of one filter shape, and leaves every other cause
 * and shape alone.
 */
import { afterEach, describe, expect, test } from 'vitest';
import {
  allEventSiteFaults,
  eventSiteFaultName,
  eventSiteRequirement,
  parseEventSiteFault,
  reachedEventSiteFaults,
  unreachedBecause,
} from '../../simulator/event-site-faults.js';
import { FaultSet } from '../../simulator/faults.js';
import { siteFaultsText } from '../../simulator/main.js';
import { FILTER_SHAPES, filterShapeOf, type FilterShape } from '../../client/event-site.js';
import { buildImageTarball } from '../../simulator/image-archive.js';
import { versionId } from '../../simulator/initial-tree.js';
import { eventSitePairs, sampledSitePairs, SAMPLED_EVENT_PAIRS, sitePairs } from '../../runner/mutation/site-runs.js';
import { I, ROOT, sleep, startWithSession, subscribe, type Session, type Subscription } from './helpers.js';

describe('the pairs', () => {
  test('every operator at every cause it applies to and every filter shape: 64 pairs, each named NAME@CAUSE:SHAPE and read back', () => {
    const pairs = allEventSiteFaults();
    expect(pairs.length).toBe(64);
    for (const p of pairs) expect(parseEventSiteFault(eventSiteFaultName(p))).toEqual(p);
    expect(new Set(pairs.map(eventSiteFaultName)).size).toBe(pairs.length);
    for (const p of pairs) expect(() => new FaultSet([eventSiteFaultName(p)])).not.toThrow();
  });

  test('simulate --list-faults --sites prints each event pair the run reaches on a line of its own, after the answer pairs; the others each have a reason', () => {
    const lines = siteFaultsText().split('\n');
    for (const p of reachedEventSiteFaults()) expect(lines).toContain(eventSiteFaultName(p));
    const unreached = allEventSiteFaults().filter((p) => unreachedBecause(p) !== undefined);
    for (const p of unreached) expect(lines).not.toContain(eventSiteFaultName(p));
    expect(lines.filter((l) => l.startsWith('event-'))).toHaveLength(64 - unreached.length);
    expect(reachedEventSiteFaults().length).toBeGreaterThanOrEqual(40);
    expect(lines.every((l) => /^[a-z0-9-]+@[a-z-]+:[a-z-]+$/.test(l))).toBe(true);
  });

  test('a dropped event names the requirement of the filter that drops it; the other operators their own', () => {
    const requirement = (name: string) => eventSiteRequirement(parseEventSiteFault(name)!);
    expect(requirement('event-dropped@put-attr:empty')).toBe('EV-1');
    expect(requirement('event-dropped@upload:paths')).toBe('EV-4');
    expect(requirement('event-dropped@put-object:interfaces')).toBe('EV-5');
    expect(requirement('event-dropped@action:both')).toBe('EV-6');
    expect(requirement('event-duplicated@upload:empty')).toBe('EV-8');
    expect(requirement('event-stale-value@put-attr:paths')).toBe('EV-2');
    expect(requirement('event-phantom-change@action:empty')).toBe('EV-2');
    expect(requirement('event-wrong-path@upload:interfaces')).toBe('EV-3');
  });

  test.each([
    ['event-dropped@nowhere:empty', 'an unknown cause'],
    ['event-dropped@put-attr:some', 'an unknown shape'],
    ['event-dropped@put-attr', 'no shape'],
    ['event-dropped@put-attr:empty:more', 'a third part'],
    ['event-stale-value@upload:empty', 'a stale value where no property changes'],
    ['event-wrong-path@put-attr:empty', 'an InterfacesAdded misreport where no object appears'],
    ['no-such-operator@put-attr:empty', 'an unknown operator'],
  ])('%s is refused (%s)', (name) => {
    expect(parseEventSiteFault(name)).toBeUndefined();
    expect(() => new FaultSet([name])).toThrow(/unknown fault/);
  });

  test('the mutation self-test has a pair for each, in an area, and npm test runs the sampled ones', () => {
    const names = new Set(sitePairs().map((p) => p.name));
    for (const p of eventSitePairs()) expect(names.has(p.name)).toBe(true);
    for (const p of eventSitePairs()) expect(['events', 'stateful']).toContain(p.area);
    expect(SAMPLED_EVENT_PAIRS.length).toBeGreaterThanOrEqual(4);
    for (const name of SAMPLED_EVENT_PAIRS) {
      expect(sampledSitePairs()).toContain(name);
      expect(names.has(name)).toBe(true);
    }
    // Every operator runs in npm test.
    const operators = new Set(SAMPLED_EVENT_PAIRS.map((n) => n.slice(0, n.indexOf('@'))));
    expect(operators.size).toBe(5);
  });

  test('the shape of a filter is the keys it has', () => {
    expect(filterShapeOf({})).toBe('empty');
    expect(filterShapeOf({ paths: [] })).toBe('paths');
    expect(filterShapeOf({ interfaces: ['a'] })).toBe('interfaces');
    expect(filterShapeOf({ interfaces: ['a'], paths: ['/x'] })).toBe('both');
    expect(filterShapeOf([])).toBeUndefined();
    expect(filterShapeOf('{}')).toBeUndefined();
  });
});

const LED = `${ROOT}/led/groups/enclosure_identify`;
const LED_IFACE = `${I}.Led.Group`;
const SYSTEM = `${ROOT}/inventory/system`;
const HOST = `${ROOT}/state/host0`;
const VERSION = 'event-site-version';
const VERSION_PATH = `${ROOT}/software/${versionId(VERSION)}`;

/** One filter of each shape, each admitting the LED group's changes, the host's and the new version. */
const FILTERS: Readonly<Record<FilterShape, unknown>> = {
  empty: {},
  paths: { paths: [LED, HOST, VERSION_PATH] },
  interfaces: { interfaces: [LED_IFACE, `${I}.State.Host`, `${I}.Software.Version`] },
  both: { paths: [LED, HOST], interfaces: [`${I}.Software.Version`] },
};

describe('a pair breaks its statement at its site only', () => {
  let s: Session | undefined;
  let subs: Subscription[] = [];
  afterEach(async () => {
    for (const sub of subs) sub.close();
    subs = [];
    await s?.sim.close();
    s = undefined;
  });

  /**
   * The messages each shape's subscription received while `act` ran, once a witness got `n`: the
   * subscription of a shape the fault leaves alone (paths for a fault at {}, else {}).
   */
  async function byShape(fault: string, act: (s: Session) => Promise<unknown>, n: number): Promise<Record<FilterShape, any[]>> {
    s = await startWithSession({ faults: [fault] });
    subs = await Promise.all(FILTER_SHAPES.map((shape) => subscribe(s!.sim.url, s!.cookie, FILTERS[shape])));
    const witness = subs[fault.endsWith(':empty') ? 1 : 0]!;
    await act(s);
    await witness.waitFor(n);
    await sleep(100);
    return Object.fromEntries(FILTER_SHAPES.map((shape, i) => [shape, subs[i]!.messages])) as Record<FilterShape, any[]>;
  }

  const putLed = (s: Session) => s.put(`${LED}/attr/Asserted`, 1);

  test.each(FILTER_SHAPES)('event-dropped@put-attr:%s: that shape alone misses the change', async (shape) => {
    const got = await byShape(`event-dropped@put-attr:${shape}`, putLed, 1);
    for (const other of FILTER_SHAPES) expect(got[other], other).toHaveLength(other === shape ? 0 : 1);
  });

  test('event-dropped@put-attr:paths leaves a whole-object PUT of the same property alone', async () => {
    const got = await byShape(
      'event-dropped@put-attr:paths',
      async (s) => {
        expect((await s.put(LED, { Asserted: 1 })).status).toBe(200);
      },
      1,
    );
    for (const shape of FILTER_SHAPES) expect(got[shape], shape).toHaveLength(1);
  });

  test('event-dropped@put-object:interfaces: a whole-object PUT is missed by an interfaces filter, an attribute PUT is not', async () => {
    const got = await byShape(
      'event-dropped@put-object:interfaces',
      async (s) => {
        await s.put(LED, { Asserted: 1 });
        await s.put(`${LED}/attr/Asserted`, 0);
      },
      2,
    );
    expect(got.interfaces.map((e) => e.properties.Asserted)).toEqual([0]);
    expect(got.empty.map((e) => e.properties.Asserted)).toEqual([1, 0]);
  });

  test('event-duplicated@put-attr:both: that shape gets the change twice', async () => {
    const got = await byShape('event-duplicated@put-attr:both', putLed, 1);
    expect(got.both).toHaveLength(2);
    expect(got.both[0]).toEqual(got.both[1]);
    for (const other of ['empty', 'paths', 'interfaces'] as const) expect(got[other]).toHaveLength(1);
  });

  test('event-stale-value@put-attr:empty: {} gets the value from before the change', async () => {
    const got = await byShape('event-stale-value@put-attr:empty', putLed, 1);
    expect(got.empty.map((e) => e.properties)).toEqual([{ Asserted: 0 }]);
    expect(got.paths.map((e) => e.properties)).toEqual([{ Asserted: 1 }]);
  });

  test('event-phantom-change@put-attr:interfaces: the value held before goes first, then the change', async () => {
    const got = await byShape('event-phantom-change@put-attr:interfaces', putLed, 1);
    expect(got.interfaces.map((e) => e.properties)).toEqual([{ Asserted: 0 }, { Asserted: 1 }]);
    expect(got.both.map((e) => e.properties)).toEqual([{ Asserted: 1 }]);
  });

  const uploadVersion = (s: Session) =>
    s.call('POST', '/upload/image', { raw: buildImageTarball({ version: VERSION }), contentType: 'application/octet-stream' });

  test('event-wrong-path@upload:paths: the InterfacesAdded names the parent of the new version there alone', async () => {
    const got = await byShape('event-wrong-path@upload:paths', uploadVersion, 1);
    expect(got.paths.map((e) => e.path)).toEqual([`${ROOT}/software`]);
    expect(got.interfaces.map((e) => e.path)).toEqual([VERSION_PATH]);
    expect(got.empty.map((e) => e.path)).toEqual([VERSION_PATH]);
  });

  test("event-dropped@action:empty: {} misses the host's own move, not the request written", async () => {
    const got = await byShape(
      'event-dropped@action:empty',
      (s) => s.put(`${HOST}/attr/RequestedHostTransition`, `${I}.State.Host.Transition.On`),
      2,
    );
    expect(got.empty.map((e) => Object.keys(e.properties))).toEqual([['RequestedHostTransition']]);
    expect(got.paths.map((e) => Object.keys(e.properties))).toEqual([['RequestedHostTransition'], ['CurrentHostState']]);
  });

  test('event-dropped@upload:empty leaves the changes of a write alone', async () => {
    const got = await byShape(
      'event-dropped@upload:empty',
      async (s) => {
        await s.put(`${SYSTEM}/attr/AssetTag`, 'EVENT-SITE');
        await uploadVersion(s);
      },
      1,
    );
    expect(got.empty.map((e) => e.event)).toEqual(['PropertiesChanged']);
    expect(got.interfaces.map((e) => e.event)).toEqual(['InterfacesAdded']);
  });
});
