/** The values a domain check writes outside an enumeration, and which requirement owns each attribute. */
import { describe, expect, test } from 'vitest';
import { domainOwner, isEnumerated, outsideValues } from '../../suites/writes/value-domains.js';
import type { WritePlan } from '../../suites/harness/writable.js';

const ROOT = '/xyz/mgmt_project';
const X = 'xyz.mgmt_project';
const transitions = [`${X}.State.Host.Transition.Off`, `${X}.State.Host.Transition.On`];
const hostPlan: WritePlan = {
  attr: { path: `${ROOT}/state/host0`, name: 'RequestedHostTransition', values: transitions },
  original: transitions[0],
  next: transitions[1],
};
const ledActions = ['Off', 'On', 'Blink'].map((a) => `${X}.Led.Physical.Action.${a}`);
const ledPlan: WritePlan = {
  attr: { path: `${ROOT}/led/physical/identify`, name: 'State', values: ledActions },
  original: ledActions[0],
  next: ledActions[1],
};

describe('outside values', () => {
  test('a member the family lacks, and a member of another enumeration with a member name of its own', () => {
    expect(outsideValues('mgmt_project', hostPlan)).toEqual([
      `${X}.State.Host.Transition.BmcConformanceSideways`,
      `${X}.State.Host.HostState.Off`,
    ]);
    expect(outsideValues('mgmt_project', ledPlan)).toEqual([
      `${X}.Led.Physical.Action.BmcConformanceSideways`,
      `${X}.State.Host.HostState.Off`,
    ]);
  });

  test('never a declared member, whatever the enumeration', () => {
    const offOnly: WritePlan = { ...hostPlan, attr: { ...hostPlan.attr, values: [...transitions, `${X}.State.Host.HostState.Off`] } };
    const [unknown, other] = outsideValues('mgmt_project', offOnly);
    expect(offOnly.attr.values).not.toContain(unknown);
    expect(offOnly.attr.values).not.toContain(other);
    expect(other).toMatch(/^xyz\.mgmt_project\./);
  });
});

describe('owner', () => {
  test('the host object is OBJ-5, the time objects OBJ-4, any other WR-1', () => {
    expect(domainOwner(ROOT, hostPlan.attr)).toBe('OBJ-5');
    expect(domainOwner(ROOT, { path: `${ROOT}/time/sync_method`, name: 'TimeSyncMethod' })).toBe('OBJ-4');
    expect(domainOwner(ROOT, { path: `${ROOT}/time/owner`, name: 'TimeOwner' })).toBe('OBJ-4');
    expect(domainOwner(ROOT, { path: `${ROOT}/time/owner`, name: 'TimeSyncMethod' })).toBe('WR-1');
    expect(domainOwner(ROOT, ledPlan.attr)).toBe('WR-1');
  });

  test('only an xyz enumeration string with declared members is enumerated', () => {
    expect(isEnumerated(hostPlan)).toBe(true);
    expect(isEnumerated({ ...hostPlan, attr: { path: hostPlan.attr.path, name: hostPlan.attr.name } })).toBe(false);
    expect(
      isEnumerated({ attr: { path: `${ROOT}/inventory/system`, name: 'AssetTag', values: ['A', 'B'] }, original: 'A', next: 'B' }),
    ).toBe(false);
  });
});
