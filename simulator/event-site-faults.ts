/**
 * Event faults that break one statement at one site: `--fault NAME@CAUSE:SHAPE` applies the
 * operator NAME to the events one cause of change pushes to the subscriptions whose filter has one
 * shape (client/event-site.ts), and to no other. A statement about every event must be judged for
 * every cause and every filter, not only where a check of its own writes and listens: the mutation
 * self-test runs every pair.
 */
import type { Operator } from '../catalogue/operators.js';
import {
  EVENT_CAUSES,
  eventSiteName,
  FILTER_SHAPES,
  parseEventSite,
  type EventCause,
  type EventSite,
  type FilterShape,
} from '../client/event-site.js';

export interface EventSiteFaultInfo {
  name: string;
  operator: Operator;
  /** The requirement it breaks at a site; a dropped event narrows the receiving filter's own. */
  requirement: (shape: FilterShape) => string;
  description: string;
  /** The causes the operator can apply to (a stale value needs a property that changed). */
  causes: readonly EventCause[];
}

/** Causes whose events include a PropertiesChanged: a value that changed, with one before it. */
const CHANGES: readonly EventCause[] = ['put-attr', 'put-object', 'action'];
/** Causes whose events include an InterfacesAdded: a new object. */
const ADDS: readonly EventCause[] = ['upload', 'action'];

/** The requirement of the filter that drops what it must admit: {} EV-1, paths EV-4, interfaces EV-5, both EV-6. */
const FILTER_REQUIREMENT: Readonly<Record<FilterShape, string>> = { empty: 'EV-1', paths: 'EV-4', interfaces: 'EV-5', both: 'EV-6' };

export const EVENT_SITE_FAULTS = [
  {
    name: 'event-dropped',
    operator: 'narrow',
    requirement: (shape) => FILTER_REQUIREMENT[shape],
    causes: EVENT_CAUSES,
    description: 'the event is not pushed to the subscriptions of the filter shape, which admits it',
  },
  {
    name: 'event-duplicated',
    operator: 'duplicate',
    requirement: () => 'EV-8',
    causes: EVENT_CAUSES,
    description: 'the event is pushed twice',
  },
  {
    name: 'event-stale-value',
    operator: 'misreport',
    requirement: () => 'EV-2',
    causes: CHANGES,
    description: 'a PropertiesChanged carries the value from before the change',
  },
  {
    name: 'event-phantom-change',
    operator: 'extra',
    requirement: () => 'EV-2',
    causes: CHANGES,
    description:
      'a PropertiesChanged of the same property carrying the value from before the change goes first: an event of a change that never happened',
  },
  {
    name: 'event-wrong-path',
    operator: 'misreport',
    requirement: () => 'EV-3',
    causes: ADDS,
    description: 'an InterfacesAdded names the parent of the new object as its path',
  },
] as const satisfies readonly EventSiteFaultInfo[];

export type EventSiteFaultName = (typeof EVENT_SITE_FAULTS)[number]['name'];

const BY_NAME = new Map<string, EventSiteFaultInfo>(EVENT_SITE_FAULTS.map((f) => [f.name, f]));

/** One operator at one event site. */
export interface EventSiteFault {
  fault: EventSiteFaultInfo;
  site: EventSite;
}

/** `NAME@CAUSE:SHAPE` as an event site fault, or undefined when it names none. */
export function parseEventSiteFault(text: string): EventSiteFault | undefined {
  const at = text.indexOf('@');
  if (at < 0) return undefined;
  const fault = BY_NAME.get(text.slice(0, at));
  const site = parseEventSite(text.slice(at + 1));
  if (!fault || !site || !fault.causes.includes(site.cause)) return undefined;
  return { fault, site };
}

export function eventSiteFaultName(f: EventSiteFault): string {
  return `${f.fault.name}@${eventSiteName(f.site)}`;
}

/** The requirement the pair breaks. */
export function eventSiteRequirement(f: EventSiteFault): string {
  return f.fault.requirement(f.site.shape);
}

/** Every operator at every site it applies to (each can be injected with `--fault NAME@CAUSE:SHAPE`). */
export function allEventSiteFaults(): EventSiteFault[] {
  return EVENT_SITE_FAULTS.flatMap((fault) =>
    fault.causes.flatMap((cause) => FILTER_SHAPES.map((shape) => ({ fault, site: { cause, shape } }))),
  );
}

/**
 * The pairs no traffic of the conformance run reaches, and why: they stay injectable, but the
 * mutation self-test (and `simulate --list-faults --sites`) lists only the pairs the run reaches.
 */
export const UNREACHED_EVENT_PAIRS: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /@upload:(paths|both)$/,
    "a paths filter cannot list a version before it exists, and its InterfacesAdded comes from the ObjectManager above it, which a paths filter admits or not as the field servers read it (client/event-filter.ts: 'may')",
  ],
  [/@action:(paths|both)$/, 'no check watches what an action changes (the host state, a registered version) through a paths filter'],
  [
    /^event-(stale-value|phantom-change)@action:/,
    "what an action changes is the target's own doing (the host's state): no check of the run knows the value before it to tell a stale or repeated one",
  ],
  [
    /^event-dropped@(upload:empty|action:empty|action:interfaces)$/,
    'a new object or host state no subscription of that shape receives reads as EV-3 or EV-8 (the InterfacesAdded or the change never arrived), not as the filter: the oracle attributes no InterfacesAdded to a cause',
  ],
];

/** Why a pair is not reached by the run, or undefined when it is. */
export function unreachedBecause(f: EventSiteFault): string | undefined {
  const name = eventSiteFaultName(f);
  return UNREACHED_EVENT_PAIRS.find(([re]) => re.test(name))?.[1];
}

/** The pairs the mutation self-test runs: every operator at every site the run's traffic reaches. */
export function reachedEventSiteFaults(): EventSiteFault[] {
  return allEventSiteFaults().filter((f) => unreachedBecause(f) === undefined);
}
