/** Which interface names a PropertiesChanged may carry and an interfaces filter can list. */
import { describe, expect, test } from 'vitest';
import { interfaceProblem, usableInterface } from '../../suites/events/engine/filters.js';

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
