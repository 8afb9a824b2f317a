/**
 * What a run tells every client of this thread, and what the clients tell the run. The suites run
 * in a worker thread and make their clients themselves: the run reaches them through this module
 * (defaults, a halt when it is interrupted), and learns from it what they met (outages) and which
 * sessions they hold, so that it can close them.
 */
import type { SerializedCookies } from './cookies.js';
import { InterruptedError, type Outage } from './errors.js';

export interface ClientDefaults {
  /** Answers longer than this are cut off and reported. */
  maxResponseBytes?: number;
  /** How long a request waits for an unreachable target to come back; 0 fails at once. */
  outageWaitMs?: number;
}

export type ClientEvent =
  | { type: 'outage'; outage: Outage }
  /** A session a client logged in with (`open`) or logged out of; `key` tells sessions apart. */
  | { type: 'session'; open: boolean; key: string; cookies: SerializedCookies };

let defaults: ClientDefaults = {};
const listeners = new Set<(event: ClientEvent) => void>();
const halt = new AbortController();

export function setClientDefaults(values: ClientDefaults): void {
  defaults = { ...values };
}

export function clientDefaults(): Readonly<ClientDefaults> {
  return defaults;
}

export function onClientEvent(listener: (event: ClientEvent) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function emitClientEvent(event: ClientEvent): void {
  for (const listener of listeners) listener(event);
}

/**
 * Stops every request of this thread's clients: those in flight end at once, later ones are not
 * sent, both with an InterruptedError naming `reason`. Clients made with `duringHalt` still send.
 */
export function haltRequests(reason: string): void {
  if (!halt.signal.aborted) halt.abort(new InterruptedError(reason));
}

export function haltSignal(): AbortSignal {
  return halt.signal;
}

