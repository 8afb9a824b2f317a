/**
 * The verifier's subscribers under load, one of each kind of filter the spec defines: `paths` (the
 * register's path), `interfaces` (the register's interface), `both` (the two, ORed) and `none` (`{}`).
 * Each must carry one PropertiesChanged per accepted write of the register, in order (EV-8, EV-9);
 * other events the load causes are no violation where the filter admits them, and one it should
 * have excluded FAILs the filter's requirement (EV-4, EV-5, EV-6).
 */
import { admission, changeOf, type EventFilter } from '../../client/event-filter.js';
import type { ReceivedEvent } from '../../client/subscriber.js';
import type { RegisterOperation } from './history.js';
import { countEvents, type EventCount } from './register-events.js';

export const FILTER_KINDS = ['paths', 'interfaces', 'both', 'none'] as const;
export type FilterKind = (typeof FILTER_KINDS)[number];

/** The requirement of each kind of filter: what it must admit, and only that. */
export const FILTER_REQUIREMENT: Record<Exclude<FilterKind, 'none'>, string> = { paths: 'EV-4', interfaces: 'EV-5', both: 'EV-6' };

/** The filter of a kind for the register at `path` with interface `iface`. */
export function filterFor(kind: FilterKind, path: string, iface: string | undefined): EventFilter {
  switch (kind) {
    case 'paths':
      return { paths: [path] };
    case 'interfaces':
      return { interfaces: [iface!] };
    case 'both':
      return { paths: [path], interfaces: [iface!] };
    case 'none':
      return {};
  }
}

/**
 * Whether the spec's filter may admit an event message (client/event-filter.ts, the events suites'
 * reading): false only for what it must exclude, so a change below a listed path or an
 * InterfacesAdded of it, which field servers read either way, is no foreign event here either;
 * undefined for a message that is no event of the two kinds.
 */
export function admits(filter: EventFilter, data: unknown): boolean | undefined {
  const change = changeOf(data);
  return change && admission(filter, change) !== 'never';
}

/** One subscriber's stream judged after a round. */
export interface StreamCount extends EventCount {
  kind: FilterKind;
  /**
   * The target closed the subscription (bmcweb closes a filter without paths): its filter is
   * judged by the idle events suite (EV-1, EV-5), so the stream here is left unjudged.
   */
  closed?: true;
  /** Events the filter should have excluded. */
  foreign: number;
  foreignExample?: string;
}

export function judgeStream(
  kind: FilterKind,
  filter: EventFilter,
  writes: readonly RegisterOperation[],
  events: readonly ReceivedEvent[],
  path: string,
  name: string,
): StreamCount {
  const count = countEvents(writes, events, path, name);
  const excluded = events.filter((ev) => admits(filter, ev.data) === false);
  const first = excluded[0]?.data as { event?: string; path?: string; interface?: string } | undefined;
  return {
    kind,
    ...count,
    foreign: excluded.length,
    ...(first && { foreignExample: `${first.event} of ${first.path}${first.interface ? ` (${first.interface})` : ''}` }),
  };
}

/**
 * The requirements a round's streams break. Losses on a filtered stream while the unfiltered one
 * got every event are the filter's (it narrowed); losses the unfiltered stream shares are delivery's (EV-8).
 */
export function streamViolations(streams: readonly StreamCount[]): Array<{ requirement: string; problem: string }> {
  const out: Array<{ requirement: string; problem: string }> = [];
  const unfiltered = streams.find((s) => s.kind === 'none' && !s.closed);
  const deliveryComplete = unfiltered !== undefined && unfiltered.lost === 0;
  for (const s of streams) {
    if (s.closed) continue;
    const label =
      s.kind === 'none'
        ? 'the unfiltered subscriber ({})'
        : `the subscriber filtered on ${s.kind === 'both' ? 'paths and interfaces' : s.kind}`;
    const narrowed = s.kind !== 'none' && deliveryComplete && s.lost > 0;
    if (narrowed)
      out.push({
        requirement: FILTER_REQUIREMENT[s.kind as Exclude<FilterKind, 'none'>],
        problem: `${label} missed ${s.lost} of ${s.expected} PropertiesChanged its filter admits, which the unfiltered subscriber got (${s.example ?? ''})`,
      });
    if ((s.lost > 0 && !narrowed) || s.duplicated > 0)
      out.push({
        requirement: 'EV-8',
        problem: `${label}: ${s.lost} of ${s.expected} PropertiesChanged events lost, ${s.duplicated} duplicated (${s.example ?? ''})`,
      });
    if (s.reordered > 0)
      out.push({ requirement: 'EV-9', problem: `${label}: ${s.reordered} events out of the order of their writes (${s.example ?? ''})` });
    if (s.foreign > 0 && s.kind !== 'none')
      out.push({
        requirement: FILTER_REQUIREMENT[s.kind],
        problem: `${label} received ${s.foreign} events its filter excludes (${s.foreignExample ?? ''})`,
      });
  }
  return out;
}
