/**
 * What a run tells every client of this thread, and what the clients tell the run. The suites run
 * in a worker thread and make their clients themselves: the run reaches them through this module
 * (defaults, the interruption), and learns from it what they met (outages) and which sessions they
 * hold, so that it can close them.
 */
import { forgetEachRun } from './run-scoped.js';
import { setMaxListeners } from 'node:events';
import type { SerializedCookies } from './cookies.js';
import { InterruptedError, type Outage, type SessionLoss } from './errors.js';
import type { TreeRead } from './tree-reads.js';

export interface ClientDefaults {
  /** Answers longer than this are cut off and reported. */
  maxResponseBytes?: number;
  /** How long a request waits for an unreachable target to come back; 0 fails at once. */
  outageWaitMs?: number;
}

export type ClientEvent =
  | { type: 'outage'; outage: Outage }
  /** A working session refused without a logout of ours (a restart, an expiry, an eviction). */
  | { type: 'session-lost'; loss: SessionLoss }
  /** A session a client logged in with (`open`) or logged out of; `key` tells sessions apart. */
  | { type: 'session'; open: boolean; key: string; cookies: SerializedCookies }
  /** A whole-tree read (enumerate or list of a namespace root) and its time. */
  | { type: 'tree-read'; read: TreeRead };

let defaults: ClientDefaults = {};
const listeners = new Set<(event: ClientEvent) => void>();
let inFlight = runWideController();
let interrupted: string | undefined;
let abandoned = false;
forgetEachRun(() => {
  defaults = {};
  listeners.clear();
  inFlight = runWideController();
  interrupted = undefined;
  abandoned = false;
});

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

/** The run was interrupted: tests that have not started will not (the one running may finish). */
export function interruptRequests(reason: string): void {
  interrupted ??= reason;
}

/** "the run was interrupted (SIGINT)" once it was. */
export function interruptedBy(): string | undefined {
  return interrupted;
}

/**
 * The test still running well after the interruption is hurried: the requests in flight end with
 * an InterruptedError, so it stops waiting on a slow target; later requests are sent (its cleanups
 * restore what it wrote).
 */
export function abandonRequests(): void {
  if (abandoned || interrupted === undefined) return;
  abandoned = true;
  inFlight.abort(new InterruptedError(interrupted));
  inFlight = runWideController();
}

/** Every request in flight listens on this one signal: dozens at once are the normal case, not a leak. */
function runWideController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/** The reason of the interruption once requests in flight were abandoned. */
export function abandonedBy(): string | undefined {
  return abandoned ? interrupted : undefined;
}

/** Aborted when requests are abandoned: a request holds the signal of the moment it was sent. */
export function interruptSignal(): AbortSignal {
  return inFlight.signal;
}
