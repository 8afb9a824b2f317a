/** Faults of event filters probed with near misses, premature and padded events. */
import type { FaultInfo } from './fault-info.js';

/** Why a coalescing server fails the checks that count the measured writes' events. */
const COALESCED =
  'the measured writes follow each other within the window: their changes go out as one message, which reads as none of them';

export const EVENT_FAULTS = [
  {
    name: 'paths-filter-string-prefix',
    requirement: 'EV-4',
    description: "a paths filter admits every path that starts with a listed string (a listed path's parent admits it)",
    operator: 'widen',
  },
  {
    name: 'paths-filter-subtree',
    requirement: 'EV-4',
    description: 'a paths filter admits the listed paths and everything below them',
    operator: 'widen',
  },
  {
    name: 'paths-filter-case-insensitive',
    requirement: 'EV-4',
    description: 'a paths filter compares paths without regard to case',
    operator: 'widen',
  },
  {
    name: 'interfaces-filter-prefix',
    requirement: 'EV-5',
    description: 'an interfaces filter admits every interface that starts with a listed string',
    operator: 'widen',
  },
  {
    name: 'interfaces-filter-case-insensitive',
    requirement: 'EV-5',
    description: 'an interfaces filter compares interface names without regard to case',
    operator: 'widen',
  },
  {
    name: 'paths-filter-first-entry-only',
    requirement: 'EV-4',
    description: 'a paths filter listing several paths honours only its first entry',
    operator: 'narrow',
  },
  {
    name: 'paths-filter-last-entry-only',
    requirement: 'EV-4',
    description: 'a paths filter listing several paths honours only its last entry',
    operator: 'narrow',
  },
  {
    name: 'interfaces-filter-first-entry-only',
    requirement: 'EV-5',
    description: 'an interfaces filter listing several interfaces honours only its first entry',
    operator: 'narrow',
  },
  {
    name: 'interfaces-filter-last-entry-only',
    requirement: 'EV-5',
    description: 'an interfaces filter listing several interfaces honours only its last entry',
    operator: 'narrow',
  },
  {
    name: 'events-before-filter',
    requirement: 'EV-4',
    description: 'a socket receives every event between its opening and its filter message',
    operator: 'premature',
  },
  {
    name: 'properties-changed-all',
    requirement: 'EV-2',
    description: 'a PropertiesChanged lists every property of the interface, not only the changed one',
    operator: 'extra',
    knockOn: {
      'EV-8':
        "every message lists every property: after a change the target makes itself (the host's state following a requested transition), a message can carry exactly what the one before it did, the event of one write pushed again",
    },
  },
  {
    name: 'event-on-refused-write',
    requirement: 'EV-2',
    description:
      'a refused PUT {path}/attr/{name} (read-only, wrongly typed, outside the enumeration) still pushes a PropertiesChanged with the refused value',
    operator: 'extra',
    // The writes area sends refused writes; the run's watcher sees their events.
    reachedBy: 'writes',
  },
  {
    name: 'event-on-same-value',
    requirement: 'EV-2',
    description: 'a PUT {path}/attr/{name} of the value it holds pushes a PropertiesChanged, though nothing changed',
    operator: 'extra',
    // The write property's boundaries write values a property already holds; the run's watcher sees their events.
    reachedBy: 'fuzz',
    knockOn: {
      'EV-8':
        "read by value, the event of a write of the value a property holds is the message the write that set it raised, again: where the run cannot tell the second write changed nothing (written in flight with another, or with no read before it), it is one write's event twice",
    },
  },
  {
    name: 'properties-changed-coalesced',
    requirement: 'EV-8',
    description: 'changes of one object and interface within 250 ms go out as one PropertiesChanged with the last values',
    operator: 'coalesce',
    // Seen where the events area runs whole (npm run mutation): its measured writes follow each other within the window.
    knockOn: {
      'EP-14': COALESCED,
      'EV-1': COALESCED,
      'EV-4': COALESCED,
      'EV-5': COALESCED,
      'EV-6': COALESCED,
      'EV-9':
        'RequestedHostTransition and CurrentHostState change within the window: one message carries both, read as the current state first',
    },
  },
] as const satisfies readonly FaultInfo[];
