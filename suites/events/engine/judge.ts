/**
 * One subscriber's stream against the model: the changes its filter must (or may) admit, in the
 * order they happened, each exactly once, carrying the new values and the interface each property
 * belongs to. Every problem names the requirement it breaks.
 */
import type { ReceivedEvent } from '../../../client/subscriber.js';
import { isMap, sameValue } from '../../../client/values.js';
import { show } from '../../harness/assert.js';
import { brief } from './subscription.js';
import { admission, filterRequirement, isBelow, type Admission, type Change, type EventFilter } from './filters.js';

export interface Expected {
  change: Change;
  admission: Exclude<Admission, 'never'>;
}

/** What `filter` must or may admit of `changes`: a stream's expected events. */
export function owed(filter: EventFilter, changes: readonly Change[]): Expected[] {
  return changes.flatMap((change) => {
    const a = admission(filter, change);
    return a === 'never' ? [] : [{ change, admission: a }];
  });
}

export interface StreamProblem {
  requirement: string;
  /** Stable for one problem, so that it is reported once however often the stream is judged. */
  key: string;
  message: string;
}

export interface StreamJudgement {
  /** Changes the filter must admit that have not arrived (yet). */
  missing: Change[];
  /** When the event of each change that arrived did (performance.now()), by change number. */
  arrived: Map<number, number>;
  problems: StreamProblem[];
  /** What the InterfacesAdded signals of each new object carried together, by change number. */
  added: Map<number, AddedUnion>;
  /**
   * InterfacesAdded changes whose signals so far lack a property the model's GET showed, where the
   * filter admits every signal of the path: more may still come within the window.
   */
  incomplete: Change[];
}

export interface StreamInput {
  what: string;
  filter: EventFilter;
  expected: readonly Expected[];
  /** What arrived since the subscription went live. */
  received: readonly ReceivedEvent[];
  /** The number of the change that proved it live: events of earlier changes are not judged. */
  since: number;
  /** Every change of the sequence, to tell an excluded change from one that never happened. */
  log: readonly Change[];
  /**
   * Whether an event is about what the model tracks (the writables' properties, the versions the
   * sequence registered): a BMC signals much else (sensors, its own services), none of it judged.
   */
  tracked: (data: Record<string, unknown>) => boolean;
}

/** Whether a PropertiesChanged carries the change (its path, the property, the new value). */
export function carries(data: Record<string, unknown>, change: Change): boolean {
  if (change.kind !== 'PropertiesChanged') return false;
  const props = data.properties;
  return data.path === change.path && isMap(props) && Object.hasOwn(props, change.name) && sameValue(props[change.name], change.value);
}

/**
 * What the InterfacesAdded signals of one new object carried, together: on a BMC several services
 * add interfaces to one path, each in a signal of its own (the image manager the version, the
 * updater its activation a little later).
 */
export interface AddedUnion {
  signals: number;
  /** Every property the signals carried, by name (a later signal's value wins). */
  properties: Record<string, unknown>;
  /** The interface names of each signal, sorted and joined: the same set twice is one signal sent twice. */
  sets: Set<string>;
}

/** Adds one signal's interfaces to the union; false, adding nothing, when the same set came before (one signal sent twice). */
function addSignal(union: AddedUnion, interfaces: Record<string, unknown>): boolean {
  const set = Object.keys(interfaces).sort().join(' ');
  if (union.sets.has(set)) return false;
  union.sets.add(set);
  union.signals++;
  for (const p of Object.values(interfaces)) if (isMap(p)) Object.assign(union.properties, p);
  return true;
}

/** What the InterfacesAdded signals of one object (the `data` of each) carried together; a signal that is no map is passed over. */
export function addedUnion(signals: readonly unknown[]): AddedUnion {
  const union: AddedUnion = { signals: 0, properties: {}, sets: new Set<string>() };
  for (const d of signals) if (isMap(d) && isMap(d.interfaces)) addSignal(union, d.interfaces);
  return union;
}

/** What a single InterfacesAdded says wrong about its own shape, if anything. */
function addedShapeProblem(data: Record<string, unknown>): string | undefined {
  if (!isMap(data.interfaces)) return `interfaces is ${show(data.interfaces)}, not a map of interface to properties`;
  for (const [iface, p] of Object.entries(data.interfaces)) {
    if (!isMap(p)) return `interface ${iface} maps to ${show(p)}, not to its properties`;
  }
  return undefined;
}

/**
 * What the signals of one new object, together, say wrong about the object GET shows: a value GET
 * does not show, a property GET does not know, and, where the filter admits every signal of the
 * path (`complete`), a property of GET that none of them carried.
 */
export function addedContentProblem(
  union: AddedUnion,
  map: Readonly<Record<string, unknown>> | undefined,
  complete: boolean,
): string | undefined {
  if (!map) return undefined;
  const props = union.properties;
  const signals = `${union.signals} InterfacesAdded signal${union.signals === 1 ? '' : 's'} of the path`;
  for (const [name, value] of Object.entries(map)) {
    if (!Object.hasOwn(props, name)) {
      if (complete) return `its interfaces lack ${name}, which GET of the object shows (none of the ${signals} carried it)`;
      continue;
    }
    if (!sameValue(props[name], value)) return `${name} is ${show(props[name])}, GET of the object shows ${show(value)}`;
  }
  const unknown = Object.keys(props).filter((n) => !Object.hasOwn(map, n));
  return unknown.length > 0 ? `it carries ${show(unknown.slice(0, 3))}, which GET of the object does not show` : undefined;
}

/** Every signal of the path reaches a subscription with {}: only there can the union be complete. */
export function admitsEverySignal(filter: EventFilter): boolean {
  return filter.paths === undefined && filter.interfaces === undefined;
}

/** An event that arrived before the request of a change was sent is not that change's. */
function inTime(e: ReceivedEvent, change: Change): boolean {
  return change.after === undefined || e.at >= change.after;
}

/** Whether a change was requested after `at` (one with no time may have been). */
function requestedAfter(change: Change, at: number): boolean {
  return change.after === undefined || change.after > at;
}

/**
 * What a stream owes when its writer wrote `earlier` before the measured `changes` (priming): on a
 * target that delivers late and in bursts, their events land in the measurement. Each is that
 * write's, in its place before the measured ones, never a measured change's; none is owed.
 * `earlier` are numbered below the measured changes.
 */
export function withEarlier(
  filter: EventFilter,
  earlier: readonly Change[],
  changes: readonly Change[],
): Pick<StreamInput, 'expected' | 'since' | 'log'> {
  const late = owed(filter, earlier).map((e): Expected => ({ ...e, admission: 'may' }));
  return { expected: [...late, ...owed(filter, changes)], since: earlier[0]?.no ?? changes[0]?.no ?? 1, log: [...earlier, ...changes] };
}

export function judgeStream(input: StreamInput): StreamJudgement {
  const { what, filter, expected, received, log, since, tracked } = input;
  const pending = expected.map((e) => ({ ...e, matched: false }));
  const lastByPath = new Map<string, Change>();
  const arrived = new Map<number, number>();
  const added = new Map<number, AddedUnion>();
  const problems: StreamProblem[] = [];
  const problem = (requirement: string, e: ReceivedEvent, message: string): void => {
    problems.push({
      requirement,
      key: `${requirement}#${e.seq}`,
      message: `${what} (filter ${show(filter)}): ${message}: #${e.seq} ${brief(e.raw, 160)}`,
    });
  };
  const matchTo = (e: ReceivedEvent, slot: (typeof pending)[number]): void => {
    slot.matched = true;
    arrived.set(slot.change.no, e.at);
    const last = lastByPath.get(slot.change.path);
    if (last && last.no > slot.change.no)
      problem('EV-9', e, `the event of change #${slot.change.no} arrived after that of the later change #${last.no} of the same object`);
    else lastByPath.set(slot.change.path, slot.change);
  };
  /** An event that matches no pending change: a duplicate, an excluded change, or no change at all. */
  const stray = (e: ReceivedEvent, same: (c: Change) => boolean, kindRequirement: string, never: string): void => {
    if (!tracked(e.data as Record<string, unknown>)) return;
    const last = lastByPath.get(String((e.data as Record<string, unknown>).path));
    if (last && same(last)) return problem('EV-8', e, 'an event of a change that already arrived once');
    const known = log.filter(same);
    if (known.some((c) => c.no < since)) return; // a change from before the subscription went live
    if (known.some((c) => admission(filter, c) === 'never')) return problem(filterRequirement(filter), e, 'an event its filter excludes');
    if (known.length > 0) return problem('EV-8', e, 'an event of a change that already arrived once');
    problem(kindRequirement, e, never);
  };

  for (const e of received) {
    const data = e.data;
    if (!isMap(data) || (data.event !== 'PropertiesChanged' && data.event !== 'InterfacesAdded')) {
      problem('EV-7', e, 'a message that is neither InterfacesAdded nor PropertiesChanged');
      continue;
    }
    if (data.event === 'PropertiesChanged') {
      const last = lastByPath.get(data.path as string);
      // Writes sent back to back may repeat a value. The value of the change just matched on the
      // path, again, is its repeat unless a change of that value was requested after it arrived;
      // else the change it is, is the next of that value (an earlier one of the value was lost).
      const repeat = last !== undefined && carries(data, last);
      const could = pending.filter(
        (p) => !p.matched && carries(data, p.change) && inTime(e, p.change) && (!repeat || requestedAfter(p.change, arrived.get(last.no)!)),
      );
      const slot = could.find((p) => last === undefined || p.change.no > last.no) ?? could[0];
      if (!slot) {
        stray(e, (c) => carries(data, c), 'EV-2', 'a PropertiesChanged whose path and value no change made');
        continue;
      }
      matchTo(e, slot);
      const change = slot.change as Extract<Change, { kind: 'PropertiesChanged' }>;
      if (change.iface !== undefined && data.interface !== change.iface) {
        problem(
          'EV-2',
          e,
          `PropertiesChanged of ${change.name} names the interface ${show(data.interface)}; the property belongs to ${change.iface} (as its attribute PUT signalled)`,
        );
      }
      continue;
    }
    const shape = addedShapeProblem(data);
    // The newest InterfacesAdded change of the path: a later signal of it adds to what came before.
    const slot = [...pending]
      .reverse()
      .find((p) => p.change.kind === 'InterfacesAdded' && p.change.path === data.path && inTime(e, p.change));
    if (slot) {
      if (!slot.matched) matchTo(e, slot);
      if (shape) {
        problem('EV-3', e, `InterfacesAdded of ${slot.change.path}: ${shape}`);
        continue;
      }
      const union = added.get(slot.change.no) ?? addedUnion([]);
      added.set(slot.change.no, union);
      if (!addSignal(union, data.interfaces as Record<string, unknown>))
        problem('EV-8', e, `an InterfacesAdded of ${slot.change.path} with the same interfaces as one that already arrived`);
      continue;
    }
    const above = pending.find(
      (p) => !p.matched && p.change.kind === 'InterfacesAdded' && typeof data.path === 'string' && isBelow(p.change.path, data.path),
    );
    if (above) {
      above.matched = true;
      problem(
        'EV-3',
        e,
        `InterfacesAdded names ${show(data.path)}, an ancestor (the ObjectManager), not the new object ${above.change.path}`,
      );
      continue;
    }
    stray(e, (c) => c.kind === 'InterfacesAdded' && c.path === data.path, 'EV-3', 'an InterfacesAdded of a path where no object appeared');
  }
  const incomplete = admitsEverySignal(filter)
    ? pending.flatMap(({ change }) => {
        const union = added.get(change.no);
        if (change.kind !== 'InterfacesAdded' || !union || !change.map) return [];
        return Object.keys(change.map).some((n) => !Object.hasOwn(union.properties, n)) ? [change] : [];
      })
    : [];
  const missing = pending.filter((p) => !p.matched && p.admission === 'must').map((p) => p.change);
  return { missing, arrived, problems, added, incomplete };
}
