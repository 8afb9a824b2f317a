/**
 * Subscriptions a check is done with that may still receive what a target sends late (a duplicate,
 * an event of a change that never happened, one its filter never admits). Each stays open until the
 * quiet window of the last change it could receive has passed, then closes, while the run goes on:
 * what it received meanwhile is in the event ledger (event-ledger.ts), which the run-wide events
 * oracle judges against the run's causes, after waiting for every one of them to close. The check
 * itself waits only until what it is owed has arrived, not out the window as well.
 */
import { forgetEachRun } from '../../client/run-scoped.js';
import { quietLeft } from './pace.js';

interface Closable {
  close(): Promise<void>;
}

const pending = new Set<Promise<void>>();
/** Closes each pending socket at once: a run that ends early leaves none open for the next. */
const closeNow = new Set<() => void>();

forgetEachRun(() => {
  for (const now of closeNow) now();
  closeNow.clear();
  pending.clear();
});

/** Closes `socket` in `ms` (at once when `ms` is 0 or less). */
export function closeLater(socket: Closable, ms: number): void {
  let timer: NodeJS.Timeout | undefined;
  const closed = new Promise<void>((resolve) => {
    const close = (): void => {
      clearTimeout(timer);
      closeNow.delete(close);
      void socket.close().then(resolve, () => resolve());
    };
    closeNow.add(close);
    timer = setTimeout(close, Math.max(0, ms));
  });
  pending.add(closed);
  void closed.then(() => pending.delete(closed));
}

/** Closes each of `sockets` once the quiet window (`windowMs`) of the last change, at `since`, is over (pace.ts quietLeft). */
export function closeAfterQuietWindow(sockets: Iterable<Closable>, windowMs: number, since: number): void {
  const left = quietLeft(windowMs, since);
  for (const socket of sockets) closeLater(socket, left);
}

/** Until every socket handed to closeLater has closed. */
export async function lingeringClosed(): Promise<void> {
  await Promise.all([...pending]);
}
