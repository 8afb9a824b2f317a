/** What a load run requests: read-only endpoints only, so load never changes the target. */
export interface Scenario {
  name: string;
  description: string;
  /** Path under /xyz/{ns}, or absolute when it starts with "//". */
  path: (ns: string) => string;
}

export const SCENARIOS: readonly Scenario[] = [
  { name: 'get-object', description: 'GET inventory/system (endpoint 3)', path: (ns) => `/xyz/${ns}/inventory/system` },
  { name: 'get-attr', description: 'GET state/host0/attr/CurrentHostState (endpoint 4)', path: (ns) => `/xyz/${ns}/state/host0/attr/CurrentHostState` },
  { name: 'list-children', description: 'GET /xyz/{ns}/ (endpoint 5)', path: (ns) => `/xyz/${ns}/` },
  { name: 'list-network', description: 'GET network/list (endpoint 6)', path: (ns) => `/xyz/${ns}/network/list` },
  { name: 'enumerate-root', description: 'GET /xyz/{ns}/enumerate (endpoint 7, the whole tree: heavy on hardware)', path: (ns) => `/xyz/${ns}/enumerate` },
];

export const DEFAULT_SCENARIOS = ['get-object', 'get-attr', 'list-children'];

export function scenarioByName(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}
