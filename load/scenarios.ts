/**
 * The scenarios a load run can measure. Reads are allowed in every profile; the write mix needs
 * `safe` (and only touches the --writable attributes, each restored); uploads need `destructive`.
 */
import type { Profile } from '../client/profile.js';

export type ScenarioKind = 'read' | 'read-mix' | 'write-mix' | 'upload' | 'events';

export interface Scenario {
  name: string;
  description: string;
  kind: ScenarioKind;
  /** The least profile the scenario needs. */
  profile: Profile;
  /** Read scenarios: the path requested (under /xyz/{ns}). */
  path?: (ns: string) => string;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'get-object',
    kind: 'read',
    profile: 'read-only',
    description: 'GET inventory/system (endpoint 3)',
    path: (ns) => `/xyz/${ns}/inventory/system`,
  },
  {
    name: 'get-attr',
    kind: 'read',
    profile: 'read-only',
    description: 'GET state/host0/attr/CurrentHostState (endpoint 4)',
    path: (ns) => `/xyz/${ns}/state/host0/attr/CurrentHostState`,
  },
  { name: 'list-children', kind: 'read', profile: 'read-only', description: 'GET /xyz/{ns}/ (endpoint 5)', path: (ns) => `/xyz/${ns}/` },
  {
    name: 'list',
    kind: 'read',
    profile: 'read-only',
    description: 'GET network/list (endpoint 6)',
    path: (ns) => `/xyz/${ns}/network/list`,
  },
  {
    name: 'enumerate-subtree',
    kind: 'read',
    profile: 'read-only',
    description: 'GET inventory/enumerate (endpoint 7 on a subtree)',
    path: (ns) => `/xyz/${ns}/inventory/enumerate`,
  },
  {
    name: 'enumerate-root',
    kind: 'read',
    profile: 'read-only',
    description: 'GET /xyz/{ns}/enumerate (endpoint 7, the whole tree: heavy on hardware)',
    path: (ns) => `/xyz/${ns}/enumerate`,
  },
  { name: 'read-mix', kind: 'read-mix', profile: 'read-only', description: 'the read scenarios interleaved by weight (--mix)' },
  {
    name: 'write-mix',
    kind: 'write-mix',
    profile: 'safe',
    description: 'PUT of the --writable attributes, each restored and read back at the end',
  },
  {
    name: 'upload',
    kind: 'upload',
    profile: 'destructive',
    description: 'POST /upload/image of a fresh image, then DELETE of its version, in a loop',
  },
  {
    name: 'events',
    kind: 'events',
    profile: 'safe',
    description: 'write → event latency, lost and duplicated events for --subscribers WebSocket subscribers',
  },
];

export const DEFAULT_SCENARIOS = ['get-object', 'get-attr', 'list-children'];

/** Default weights of read-mix: mostly cheap reads, a subtree enumerate now and then. */
export const DEFAULT_MIX: Readonly<Record<string, number>> = {
  'get-object': 4,
  'get-attr': 3,
  'list-children': 2,
  list: 1,
  'enumerate-subtree': 1,
};

export function scenarioByName(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}

/** The scenarios whose requests are plain HTTP and so can be run at a rate or searched for capacity. */
export function isHttpScenario(s: Scenario): boolean {
  return s.kind === 'read' || s.kind === 'read-mix' || s.kind === 'write-mix';
}
