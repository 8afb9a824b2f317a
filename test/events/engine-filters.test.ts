/** Which interface names a PropertiesChanged may carry and an interfaces filter can list; items on distinct paths. */
import { describe, expect, test } from 'vitest';
import { interfaceProblem, onDistinctPaths, usableInterface } from '../../suites/events/engine/filters.js';
import type { WritePlan } from '../../suites/harness/writable.js';

describe('interface names', () => {
  test('a D-Bus interface name of the property is usable', () => {
    expect(interfaceProblem('xyz.ns.Inventory.Item')).toBeUndefined();
    expect(usableInterface('xyz.ns.Inventory.Item')).toBe(true);
  });

  test('the signal’s own interface, a bare word, a non-string or a name over 255 characters is not', () => {
    expect(interfaceProblem('org.freedesktop.DBus.Properties')).toMatch(/the interface of the signal itself/);
    expect(interfaceProblem('Item')).toMatch(/is not a D-Bus interface name/);
    expect(interfaceProblem(7)).toMatch(/not a D-Bus interface name/);
    expect(usableInterface(`xyz.${'a'.repeat(255)}`)).toBe(false);
    expect(usableInterface('org.freedesktop.DBus.Properties')).toBe(false);
  });
});

describe('onDistinctPaths', () => {
  test('plans on the same object, or on a path that prefixes another, are dropped: the first of each kept', () => {
    const p = (path: string, name: string): WritePlan => ({ attr: { path, name }, original: 0, next: 1 });
    const chosen = onDistinctPaths(
      [p('/a/led', 'X'), p('/a/led', 'Y'), p('/a/led/sub', 'Z'), p('/a/led2', 'W'), p('/a', 'V')],
      (c) => c.attr.path,
    );
    expect(chosen.map((c) => `${c.attr.path} ${c.attr.name}`)).toEqual(['/a/led X', '/a/led2 W']);
  });
});
