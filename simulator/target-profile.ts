/**
 * What the conformance suites may safely change on the simulator: attributes whose writes have no
 * side effects on other tests, and the prefix under which instances may be deleted.
 */

export interface WritableAttribute {
  path: string;
  name: string;
  /** The accepted values, for enumerated attributes. */
  values?: string[];
}

export interface SimulatorTargetProfile {
  writable: WritableAttribute[];
  /** Path prefixes (ending in '/') whose children implement xyz.{ns}.Object.Delete. */
  deletablePrefixes: string[];
}

export function simulatorDeletablePrefix(ns = 'mgmt_project'): string {
  return `/xyz/${ns}/logging/entry/`;
}

export function simulatorTargetProfile(ns = 'mgmt_project'): SimulatorTargetProfile {
  const root = `/xyz/${ns}`;
  return {
    writable: [
      { path: `${root}/inventory/system`, name: 'AssetTag' },
      { path: `${root}/led/groups/enclosure_identify`, name: 'Asserted' },
      {
        path: `${root}/led/physical/identify`,
        name: 'State',
        values: ['Off', 'On', 'Blink'].map((a) => `xyz.${ns}.Led.Physical.Action.${a}`),
      },
      { path: `${root}/control/power_cap`, name: 'PowerCap' },
      // A second writable of one object: a PUT of the object can change two attributes at once (EP-9).
      { path: `${root}/control/power_cap`, name: 'PowerCapEnable' },
    ],
    deletablePrefixes: [simulatorDeletablePrefix(ns)],
  };
}
