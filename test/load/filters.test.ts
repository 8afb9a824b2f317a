/** The verifier's filters: what each kind admits, and which requirement a stream's problem breaks. */
import { describe, expect, test } from 'vitest';
import { admits, filterFor, streamViolations, type StreamCount } from '../../load/verify/filters.js';

const PATH = '/xyz/mgmt_project/inventory/system';
const IFACE = 'xyz.mgmt_project.Inventory.Decorator.AssetTag';
const changed = (path: string, iface: string) => ({ event: 'PropertiesChanged', path, interface: iface, properties: { X: 1 } });

describe('filters', () => {
  test('each kind admits what the spec says: paths, interfaces, either of both, and everything for {}', () => {
    const own = changed(PATH, IFACE);
    const otherPath = changed('/xyz/mgmt_project/led/physical/identify', IFACE);
    const otherBoth = changed('/xyz/mgmt_project/led/physical/identify', 'xyz.mgmt_project.Led.Physical');
    const added = { event: 'InterfacesAdded', path: '/xyz/a', interfaces: { [IFACE]: {} } };
    const table = (kind: Parameters<typeof filterFor>[0]) =>
      [own, otherPath, otherBoth, added].map((e) => admits(filterFor(kind, PATH, IFACE), e));
    expect(table('paths')).toEqual([true, false, false, false]);
    expect(table('interfaces')).toEqual([true, true, false, true]);
    expect(table('both')).toEqual([true, true, false, true]);
    expect(table('none')).toEqual([true, true, true, true]);
    // What field servers read either way is no foreign event (the events suites' "may"): a change
    // below the listed path (prefix matching) and an InterfacesAdded of the listed path itself.
    const below = changed(`${PATH}/child`, 'xyz.mgmt_project.Other');
    const addedHere = { event: 'InterfacesAdded', path: PATH, interfaces: { 'xyz.mgmt_project.Other': {} } };
    expect([below, addedHere].map((e) => admits(filterFor('paths', PATH, IFACE), e))).toEqual([true, true]);
    // Their twins one step off are excluded: a sibling whose name extends the path, another interface.
    expect(admits(filterFor('paths', PATH, IFACE), changed(`${PATH}2`, IFACE))).toBe(false);
    expect(admits(filterFor('interfaces', PATH, IFACE), below)).toBe(false);
    // A message of another kind (an acknowledgement) is judged by none of them.
    expect(admits({ paths: [PATH] }, { event: 'Subscribed' })).toBeUndefined();
  });

  const stream = (kind: StreamCount['kind'], over: Partial<StreamCount> = {}): StreamCount => ({
    kind,
    expected: 10,
    delivered: 10,
    lost: 0,
    duplicated: 0,
    reordered: 0,
    foreign: 0,
    ...over,
  });

  test('losses on a filtered stream while the unfiltered one got everything are the filter narrowing', () => {
    const v = streamViolations([stream('paths'), stream('interfaces', { lost: 3, delivered: 7 }), stream('both'), stream('none')]);
    expect(v.map((x) => x.requirement)).toEqual(['EV-5']);
  });

  test('losses the unfiltered stream shares are delivery (EV-8); excluded events FAIL the filter', () => {
    const lossy = streamViolations([stream('paths', { lost: 2 }), stream('none', { lost: 2 })]);
    expect(lossy.map((x) => x.requirement)).toEqual(['EV-8', 'EV-8']);
    const wide = streamViolations([stream('paths', { foreign: 4, foreignExample: 'PropertiesChanged of /x' }), stream('none')]);
    expect(wide.map((x) => x.requirement)).toEqual(['EV-4']);
    expect(wide[0]!.problem).toContain('PropertiesChanged of /x');
    expect(streamViolations([stream('both', { reordered: 1 }), stream('none')]).map((x) => x.requirement)).toEqual(['EV-9']);
  });
});
