/**
 * A subscription: the socket the client opened on /subscribe, the filter it sent, a name for
 * messages, and, once it proved live (nothing acknowledges a filter), the event that did. The
 * events suite and the stateful area both speak of it so; `EventSocket` is what they read of the
 * socket, so that the engine's tests can hand it a fake one.
 */
import type { EventPredicate, EventSubscriber, ReceivedEvent } from '../../../client/subscriber.js';
import { show } from '../../harness/assert.js';
import { brief } from '../../../client/headline.js';

export { brief };

export type EventSocket = Pick<EventSubscriber, 'events' | 'mark' | 'closed' | 'closeInfo' | 'waitFor' | 'waitForCount' | 'close'>;

export interface Subscription {
  socket: EventSocket;
  filter: unknown;
  what: string;
  /** Index of the event that proved it live, once one did. */
  liveAt?: number;
}

/** The last few messages of a socket, for failure texts. */
export function recent(socket: EventSocket, from = 0, max = 6): string {
  const seen = socket.events.slice(from);
  if (seen.length === 0) return 'nothing arrived';
  const shown = seen.slice(-max).map((e) => `#${e.seq} ${brief(e.raw)}`);
  return `${seen.length} message(s) arrived${seen.length > max ? ` (last ${max})` : ''}: ${shown.join(' ; ')}`;
}

/** The events from `from` that match `pred` (a predicate that throws matches nothing). */
export function matching(socket: EventSocket, pred: EventPredicate, from = 0, until?: number): ReceivedEvent[] {
  return socket.events.slice(from, until).filter((e) => {
    try {
      return pred(e.data);
    } catch {
      return false;
    }
  });
}

/** A subscription and its filter, for messages. */
export function described(s: Subscription): string {
  return `${s.what} (filter ${show(s.filter)})`;
}

/** How the target closed a subscription, as a phrase, if it did. */
export function closedBy(s: Subscription): string | undefined {
  const close = s.socket.closeInfo;
  return close && `the target closed ${described(s)} with code ${close.code}${close.reason ? ` "${close.reason}"` : ''}`;
}

/** A subscription that never delivered the change it was primed with (`missed`: which, and how it was waited for): why, as a sentence. */
export function neverLive(s: Subscription, missed = 'never delivered the change it admits'): string {
  return closedBy(s) ?? `${described(s)} ${missed}; ${recent(s.socket)}`;
}
