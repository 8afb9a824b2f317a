/** Faults of value domains (enumerations, the longest string) and of POSTs that must be refused (rule 4). */
import type { FaultInfo } from './fault-info.js';

const LED_STATE_KNOCK_ON =
  "led/physical/identify State, the simulator's declared enumerated writable, takes it too: an enumeration of no object the spec shows is WR-1's (its members are its type)";

export const DOMAIN_FAULTS = [
  {
    name: 'enum-accepts-unknown-member',
    requirement: 'OBJ-5',
    operator: 'out-of-domain',
    description:
      "an enumerated attribute takes any string of its enumeration's family (xyz.{ns}.State.Host.Transition.Sideways): the prefix is checked, not the member",
    knockOn: { 'WR-1': LED_STATE_KNOCK_ON },
  },
  {
    name: 'enum-accepts-other-enum',
    requirement: 'OBJ-5',
    operator: 'out-of-domain',
    description:
      'an enumerated attribute takes a member of another enumeration whose member name it has (xyz.{ns}.State.Host.HostState.Off for a Transition): only the name after the last dot is checked',
    knockOn: { 'WR-1': LED_STATE_KNOCK_ON },
  },
  {
    name: 'string-cut-at-63',
    requirement: 'EP-8',
    operator: 'lossy',
    description: 'a string attribute is stored in a 64-byte buffer with its terminating NUL: a write of 64 characters keeps 63',
  },
  {
    name: 'post-on-object-405',
    requirement: 'RULE-4',
    operator: 'misreport',
    description: 'a POST to an existing object answers 405 Method Not Allowed (the object route has no POST), not 403',
  },
  {
    name: 'post-on-listing-ok',
    requirement: 'RULE-4',
    operator: 'misreport',
    description:
      'a POST to a listing route ({path}/, {path}/list, {path}/enumerate) answers 200 with the listing: the route is matched by its path alone',
  },
  {
    name: 'post-creates-attribute',
    requirement: 'RULE-4',
    operator: 'extra',
    description: 'a POST to {path}/attr/{name} for an attribute the object lacks answers 200 and adds the attribute with the posted value',
  },
] as const satisfies readonly FaultInfo[];
