/** The read plan EP-4 reads: decided by the tree alone, every kind of object, bounded on a large tree. */
import { describe, expect, test } from 'vitest';
import { EXTRA_PER_STRATUM, MAX_OBJECTS, PER_STRATUM, readPlan, type Enumeration } from '../../suites/harness/read-plan.js';

const ROOT = '/xyz/openbmc_project';

/** A tree of `sensors` sensors (one stratum), a few distinct objects and a log. */
function tree(sensors: number, log = 3): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {
    [`${ROOT}/network/eth0`]: { InterfaceName: 'eth0', Nameservers: ['192.0.2.53'], NTPServers: [] },
    [`${ROOT}/inventory/system`]: { Model: 'M', Present: true },
    [`${ROOT}/state`]: {},
  };
  for (let i = 0; i < sensors; i++) out[`${ROOT}/sensors/temperature/t${String(i).padStart(5, '0')}`] = { Value: 20 + i, Unit: 'C' };
  for (let i = 0; i < log; i++) out[`${ROOT}/logging/entry/${i + 1}`] = { Id: i + 1, AdditionalData: i === log - 1 ? [] : ['x'] };
  return out;
}

describe('read plan', () => {
  test('every object of a small tree is planned, with every attribute; objects without attributes are not', () => {
    const plan = readPlan(tree(2, 2));
    expect(plan.objects.map((o) => o.path)).toEqual(
      Object.keys(tree(2, 2))
        .filter((p) => !p.endsWith('/state'))
        .sort(),
    );
    expect(plan.objects.find((o) => o.path.endsWith('eth0'))!.names).toEqual(['InterfaceName', 'NTPServers', 'Nameservers']);
    expect([plan.objectsInTree, plan.strata, plan.strataCovered, plan.attributes]).toEqual([6, 4, 4, 13]);
  });

  test('the same tree gives the same plan and digest, whatever order its enumeration lists it in', () => {
    const t = tree(50);
    const reversed: Enumeration = Object.fromEntries(Object.entries(t).reverse());
    expect(readPlan(reversed)).toEqual(readPlan(t));
    const other = tree(50);
    other[`${ROOT}/network/eth1`] = { InterfaceName: 'eth1' };
    expect(readPlan(other).digest).not.toBe(readPlan(t).digest);
  });

  test('within a kind of object, the one with an attribute in a shape the others lack is planned', () => {
    const plan = readPlan(tree(2, 40));
    const entries = plan.objects.filter((o) => o.path.includes('/logging/entry/')).map((o) => o.path);
    // Entry 40 alone has an empty AdditionalData: it comes first, then the next in path order.
    expect(entries).toContain(`${ROOT}/logging/entry/40`);
    expect(entries.length).toBe(PER_STRATUM);
  });

  test('a tree of thousands of objects gives a bounded plan that still meets every kind of object', () => {
    const big = tree(5000, 2000);
    // Sensors of another kind of parent are sensors still: one kind of object.
    for (let i = 0; i < 500; i++) big[`${ROOT}/sensors/voltage/v${i}`] = { Value: i, Unit: 'V' };
    for (let k = 0; k < 300; k++) big[`${ROOT}/inventory/item${k}`] = { [`Kind${k}`]: k };
    const plan = readPlan(big);
    expect(plan.objects.length).toBeLessThanOrEqual(MAX_OBJECTS);
    expect([plan.strata, plan.strataCovered]).toEqual([304, MAX_OBJECTS]);
    expect(plan.objects.filter((o) => o.path.includes('/sensors/')).length).toBeLessThanOrEqual(EXTRA_PER_STRATUM);
    expect(plan.objects.some((o) => o.path.endsWith('/eth0'))).toBe(true);
    // Cut by the bound, strata are served in turns: each stratum's first object before any second.
    const small = readPlan(big, 10);
    expect([small.objects.length, small.strataCovered]).toEqual([10, 10]);
  });
});
