/** The pure parts of the stateful area: filter predictions, stream judgement, cookie variants. */
import { describe, expect, test } from 'vitest';
import type { ReceivedEvent } from '../../client/subscriber.js';
import { Credential, chosenValue, otherCharacter, tamperValue } from '../../suites/stateful/credentials.js';
import { admission, distinctPaths, filterRequirement, type Change } from '../../suites/events/engine/filters.js';
import { addedContentProblem, judgeStream, type Expected } from '../../suites/events/engine/judge.js';

const ROOT = '/xyz/mgmt_project';
const SYS = `${ROOT}/inventory/system`;
const LED = `${ROOT}/led/groups/enclosure_identify`;
const TAG = 'xyz.mgmt_project.Inventory.Decorator.AssetTag';
const GROUP = 'xyz.mgmt_project.Led.Group';
const VERSION = 'xyz.mgmt_project.Software.Version';

const pc = (no: number, path: string, name: string, value: unknown, iface?: string): Change => ({
  no,
  kind: 'PropertiesChanged',
  path,
  name,
  value,
  iface,
});
const ia = (no: number, path: string, map?: Record<string, unknown>): Change => ({
  no,
  kind: 'InterfacesAdded',
  path,
  interfaces: [VERSION],
  map,
});

let seq = 0;
function ev(data: unknown): ReceivedEvent {
  return { at: seq, seq: seq++, data, raw: JSON.stringify(data) };
}
const pcEvent = (path: string, name: string, value: unknown, iface = TAG) =>
  ev({ event: 'PropertiesChanged', path, interface: iface, properties: { [name]: value } });

function judge(filter: object, log: Change[], received: ReceivedEvent[], since = 1) {
  const expected: Expected[] = log.flatMap((c) => {
    const a = c.no < since ? 'never' : admission(filter, c);
    return a === 'never' ? [] : [{ change: c, admission: a }];
  });
  return judgeStream({ what: 'S1', filter, expected, received, log, since, tracked: (d) => d.path !== `${ROOT}/sensors/x` });
}

describe('filter predictions', () => {
  test('{} admits everything; paths and interfaces are ORed; a PropertiesChanged of a listed path must arrive', () => {
    const change = pc(1, SYS, 'AssetTag', 'x', TAG);
    expect(admission({}, change)).toBe('must');
    expect(admission({ paths: [SYS] }, change)).toBe('must');
    expect(admission({ paths: [LED] }, change)).toBe('never');
    expect(admission({ interfaces: [TAG] }, change)).toBe('must');
    expect(admission({ interfaces: [GROUP] }, change)).toBe('never');
    expect(admission({ paths: [LED], interfaces: [TAG] }, change)).toBe('must');
    expect(admission({ paths: [LED], interfaces: [GROUP] }, change)).toBe('never');
  });

  test('where the field servers read the spec differently the prediction is "may"', () => {
    // InterfacesAdded comes from the ObjectManager above the new object.
    expect(admission({ paths: [`${ROOT}/software/1a`] }, ia(1, `${ROOT}/software/1a`))).toBe('may');
    expect(admission({ paths: [`${ROOT}/software`] }, ia(1, `${ROOT}/software/1a`))).toBe('may');
    expect(admission({ interfaces: [VERSION] }, ia(1, `${ROOT}/software/1a`))).toBe('must');
    // Prefix matching, and an interface the model never learned.
    expect(admission({ paths: [`${ROOT}/inventory`] }, pc(1, SYS, 'AssetTag', 'x', TAG))).toBe('may');
    expect(admission({ interfaces: [TAG] }, pc(1, SYS, 'AssetTag', 'x'))).toBe('may');
  });

  test('each kind of filter owns its own requirement', () => {
    expect(filterRequirement({})).toBe('EV-1');
    expect(filterRequirement({ paths: [SYS] })).toBe('EV-4');
    expect(filterRequirement({ interfaces: [TAG] })).toBe('EV-5');
    expect(filterRequirement({ paths: [SYS], interfaces: [TAG] })).toBe('EV-6');
  });

  test('distinct paths drop a path below another (prefix-matching servers would deliver twice)', () => {
    expect(distinctPaths([SYS, `${ROOT}/inventory`, LED, LED])).toEqual([`${ROOT}/inventory`, LED]);
  });
});

describe('stream judgement', () => {
  test('the events of the changes, in order, each once: nothing to report', () => {
    const changes = [pc(1, SYS, 'AssetTag', 'a', TAG), pc(2, SYS, 'AssetTag', 'b', TAG), pc(3, SYS, 'AssetTag', 'a', TAG)];
    const j = judge({}, changes, [pcEvent(SYS, 'AssetTag', 'a'), pcEvent(SYS, 'AssetTag', 'b'), pcEvent(SYS, 'AssetTag', 'a')]);
    expect(j.problems).toEqual([]);
    expect(j.missing).toEqual([]);
  });

  test('a missing event is missing; a repeated one is EV-8; a swapped pair of one object EV-9', () => {
    const changes = [pc(1, SYS, 'AssetTag', 'a', TAG), pc(2, SYS, 'AssetTag', 'b', TAG)];
    expect(judge({}, changes, [pcEvent(SYS, 'AssetTag', 'a')]).missing).toEqual([changes[1]]);
    expect(
      judge({}, changes, [pcEvent(SYS, 'AssetTag', 'a'), pcEvent(SYS, 'AssetTag', 'a'), pcEvent(SYS, 'AssetTag', 'b')]).problems.map(
        (p) => p.requirement,
      ),
    ).toEqual(['EV-8']);
    expect(judge({}, changes, [pcEvent(SYS, 'AssetTag', 'b'), pcEvent(SYS, 'AssetTag', 'a')]).problems.map((p) => p.requirement)).toEqual([
      'EV-9',
    ]);
  });

  test("an event the filter excludes is the filter's finding; one of no change at all EV-2", () => {
    const changes = [pc(1, LED, 'Asserted', 1, GROUP), pc(2, SYS, 'AssetTag', 'a', TAG)];
    expect(
      judge({ paths: [LED] }, changes, [pcEvent(LED, 'Asserted', 1, GROUP), pcEvent(SYS, 'AssetTag', 'a')]).problems.map(
        (p) => p.requirement,
      ),
    ).toEqual(['EV-4']);
    expect(
      judge({ interfaces: [GROUP] }, changes, [pcEvent(LED, 'Asserted', 1, GROUP), pcEvent(SYS, 'AssetTag', 'a')]).problems.map(
        (p) => p.requirement,
      ),
    ).toEqual(['EV-5']);
    expect(
      judge({}, changes, [pcEvent(LED, 'Asserted', 1, GROUP), pcEvent(SYS, 'AssetTag', 'zzz')]).problems.map((p) => p.requirement),
    ).toEqual(['EV-2']);
  });

  test("a PropertiesChanged under another interface than the property's is EV-2; another kind of message EV-7", () => {
    const changes = [pc(1, SYS, 'AssetTag', 'a', TAG)];
    const wrong = judge({}, changes, [pcEvent(SYS, 'AssetTag', 'a', 'xyz.mgmt_project.Inventory.Item')]);
    expect(wrong.problems.map((p) => p.requirement)).toEqual(['EV-2']);
    expect(wrong.problems[0]!.message).toMatch(/belongs to xyz\.mgmt_project\.Inventory\.Decorator\.AssetTag/);
    expect(judge({}, changes, [ev({ event: 'Subscribed' }), pcEvent(SYS, 'AssetTag', 'a')]).problems.map((p) => p.requirement)).toEqual([
      'EV-7',
    ]);
  });

  test('an InterfacesAdded must name the new object and be well-formed (EV-3)', () => {
    const path = `${ROOT}/software/1a`;
    const changes = [ia(1, path, { Version: 'v1', Purpose: 'p' })];
    const good = ev({
      event: 'InterfacesAdded',
      path,
      interfaces: { [VERSION]: { Version: 'v1', Purpose: 'p' }, 'org.freedesktop.DBus.Peer': {} },
    });
    const j = judge({}, changes, [good]);
    expect(j.problems).toEqual([]);
    expect(j.incomplete).toEqual([]);
    const ancestor = judge({}, changes, [ev({ event: 'InterfacesAdded', path: `${ROOT}/software`, interfaces: {} })]);
    expect(ancestor.problems.map((p) => p.requirement)).toEqual(['EV-3']);
    expect(ancestor.missing).toEqual([]);
    const malformed = judge({}, changes, [ev({ event: 'InterfacesAdded', path, interfaces: { [VERSION]: 'v1' } })]);
    expect(malformed.problems.map((p) => p.requirement)).toEqual(['EV-3']);
  });

  test('the InterfacesAdded of one path from several services are judged together, against GET (EV-3)', () => {
    const path = `${ROOT}/software/1a`;
    const map = { Version: 'v1', Purpose: 'p', Activation: 'Ready' };
    const changes = [ia(1, path, map)];
    const manager = ev({ event: 'InterfacesAdded', path, interfaces: { [VERSION]: { Version: 'v1', Purpose: 'p' } } });
    const updater = ev({ event: 'InterfacesAdded', path, interfaces: { 'xyz.mgmt_project.Software.Activation': { Activation: 'Ready' } } });
    // The first part alone: more may come within the window, nothing is a problem yet.
    const part = judge({}, changes, [manager]);
    expect(part.problems).toEqual([]);
    expect(part.incomplete).toEqual(changes);
    expect(addedContentProblem(part.added.get(1)!, map, true)).toMatch(/lack Activation, which GET of the object shows/);
    // Both parts: the union covers GET, and the second is not a duplicate.
    const both = judge({}, changes, [manager, updater]);
    expect(both.problems).toEqual([]);
    expect(both.incomplete).toEqual([]);
    expect(both.added.get(1)!.signals).toBe(2);
    expect(addedContentProblem(both.added.get(1)!, map, true)).toBeUndefined();
    // The same signal twice is EV-8's.
    expect(judge({}, changes, [manager, manager, updater]).problems.map((p) => p.requirement)).toEqual(['EV-8']);
    // A filter by interface admits only some of the signals: what is lacking is not judged there.
    const byInterface = judge({ interfaces: [VERSION] }, changes, [manager]);
    expect(byInterface.incomplete).toEqual([]);
    expect(addedContentProblem(byInterface.added.get(1)!, map, false)).toBeUndefined();
    // A value GET does not show, or a property it does not know, is wrong in any signal.
    const stale = judge({}, changes, [ev({ event: 'InterfacesAdded', path, interfaces: { [VERSION]: { Version: 'v0', Purpose: 'p' } } })]);
    expect(addedContentProblem(stale.added.get(1)!, map, false)).toMatch(/Version is "v0", GET of the object shows "v1"/);
  });

  test('what the model does not track is not judged: a BMC signals its sensors too', () => {
    const changes = [pc(1, SYS, 'AssetTag', 'a', TAG)];
    expect(judge({}, changes, [pcEvent(`${ROOT}/sensors/x`, 'Value', 3), pcEvent(SYS, 'AssetTag', 'a')]).problems).toEqual([]);
  });

  test('events of changes from before the subscription went live are not judged', () => {
    const changes = [pc(1, SYS, 'AssetTag', 'a', TAG), pc(2, SYS, 'AssetTag', 'b', TAG)];
    expect(judge({}, changes, [pcEvent(SYS, 'AssetTag', 'a'), pcEvent(SYS, 'AssetTag', 'b')], 2).problems).toEqual([]);
  });
});

describe('cookie variants', () => {
  test('cut, lengthened and altered values keep their kind of characters and their quotes', () => {
    const hex = 'a'.repeat(31) + 'f' + '0'.repeat(32);
    expect(tamperValue(hex, 'truncated')).toBe(hex.slice(0, -1));
    expect(tamperValue(hex, 'extended')).toBe(`${hex}1`);
    expect(tamperValue(hex, 'altered')).toBe(`${'a'.repeat(31)}f1${'0'.repeat(31)}`);
    expect(tamperValue('"!sig?pay"', 'truncated')).toBe('"!sig?pa"');
    expect(tamperValue('"!sig?pay"', 'extended')).toBe('"!sig?payz"');
    expect(otherCharacter('f')).toBe('0');
    expect(otherCharacter('Z')).toBe('A');
    expect(otherCharacter('/')).toBe('A');
    const chosen = chosenValue(hex);
    expect(chosen).toMatch(/^[0-9a-f]{64}$/);
    expect(chosenValue('"AbC9"')).toMatch(/^"[A-Za-z0-9]{4}"$/);
  });

  test('a variant changes the session cookies, never the XSRF token, and sends the token on writes only', () => {
    const cred = new Credential(
      [
        { key: 'XSRF-TOKEN', value: 'x'.repeat(20) },
        { key: 'BMCWEB-SESSION', value: 'AbCdEfGhIjKlMnOpQrSt' },
      ],
      '$COOKIE_A',
    );
    const cut = cred.tampered('truncated');
    expect(cut.shown).toBe('$COOKIE_A_TRUNCATED');
    expect(cut.header).toBe(`XSRF-TOKEN=${'x'.repeat(20)}; BMCWEB-SESSION=AbCdEfGhIjKlMnOpQrS`);
    expect(cred.headers('GET')).toEqual({ cookie: cred.header });
    expect(cred.headers('POST')['x-xsrf-token']).toBe('x'.repeat(20));
    expect(cred.chosen('$CHOSEN_A').cookies.map((c) => c.key)).toEqual(['BMCWEB-SESSION']);
  });
});
