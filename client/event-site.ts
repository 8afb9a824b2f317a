/**
 * Where an event comes from and where it goes: the cause of the change (what the client did that
 * changed the tree) and the shape of the filter of the subscription receiving it. The simulator's
 * event faults break one statement at one such site (`--fault NAME@CAUSE:SHAPE`), and an events
 * oracle can name a finding by it.
 */

/**
 * `put-attr`: PUT {path}/attr/{name} accepted; `put-object`: PUT {path} of a whole object
 * accepted; `upload`: a new software version by POST or PUT of /upload/image (its
 * InterfacesAdded); `action`: what an action or a host transition sets in motion (the version
 * DownloadViaTFTP registers, CurrentHostState moving after a requested transition).
 */
export const EVENT_CAUSES = ['put-attr', 'put-object', 'upload', 'action'] as const;
export type EventCause = (typeof EVENT_CAUSES)[number];

/** `empty`: `{}` (no key); `paths`: paths only; `interfaces`: interfaces only; `both`: both keys. */
export const FILTER_SHAPES = ['empty', 'paths', 'interfaces', 'both'] as const;
export type FilterShape = (typeof FILTER_SHAPES)[number];

export interface EventSite {
  cause: EventCause;
  shape: FilterShape;
}

export function eventSiteName(site: EventSite): string {
  return `${site.cause}:${site.shape}`;
}

export function parseEventSite(text: string): EventSite | undefined {
  const [cause, shape, ...rest] = text.split(':');
  if (rest.length > 0 || !(EVENT_CAUSES as readonly string[]).includes(cause ?? '')) return undefined;
  if (!(FILTER_SHAPES as readonly string[]).includes(shape ?? '')) return undefined;
  return { cause: cause as EventCause, shape: shape as FilterShape };
}

/**
 * The shape of a filter as the client sent it: which of the keys `paths` and `interfaces` it has
 * (a key with an empty list counts: it is that filter, admitting nothing by that key). Undefined
 * for what is no JSON object.
 */
export function filterShapeOf(filter: unknown): FilterShape | undefined {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) return undefined;
  const paths = Object.hasOwn(filter, 'paths');
  const interfaces = Object.hasOwn(filter, 'interfaces');
  return paths && interfaces ? 'both' : paths ? 'paths' : interfaces ? 'interfaces' : 'empty';
}
