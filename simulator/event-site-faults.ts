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

/** Every operator at every site it applies to: the pairs the mutation self-test runs. */
export function allEventSiteFaults(): EventSiteFault[] {
  return EVENT_SITE_FAULTS.flatMap((fault) =>
    fault.causes.flatMap((cause) => FILTER_SHAPES.map((shape) => ({ fault, site: { cause, shape } }))),
  );
}
