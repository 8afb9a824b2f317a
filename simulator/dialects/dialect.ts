/**
 * What a dialect is: the server the simulator behaves as (the spec's own, or a field server), with
 * its defaults, how it renders values, its event hub and its request handler. The simulator picks
 * one by name (registry.ts) and wires it the same way whichever it is.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context } from '../context.js';
import type { EventHub } from '../events.js';
import type { FaultSet } from '../faults.js';
import type { WireStyle } from './wire.js';

/** bmcweb by version: `bmcweb` is current upstream, `bmcweb@2023` a build of June 2023 (bmcweb/versions.ts). */
export const DIALECTS = ['spec', 'phosphor-rest', 'bmcweb', 'bmcweb@2023'] as const;
export type DialectName = (typeof DIALECTS)[number];
/** The server a dialect is a version of. */
export type DialectFamily = 'spec' | 'phosphor-rest' | 'bmcweb';
/** Other spellings a user may write: the version named outright. */
const ALIASES: Readonly<Record<string, DialectName>> = { 'bmcweb@current': 'bmcweb' };

export function isDialect(name: string): name is DialectName {
  return (DIALECTS as readonly string[]).includes(name);
}

/** A dialect name as written on the command line (`bmcweb@current` is `bmcweb`), or undefined. */
export function parseDialect(name: string): DialectName | undefined {
  return isDialect(name) ? name : ALIASES[name];
}

export interface DialectDefaults {
  /** Events wait for the server's next poll (phosphor-rest polls its D-Bus loop). */
  eventLatencyMs: number;
  /** A failed or duplicate upload answers only after the server gave up waiting for the version. */
  uploadFailDelayMs: number;
  pingIntervalMs: number;
  /**
   * The server's own time for a plain request, one request served at a time (0: at once, in
   * parallel). The dialect adds to it per kind of request (an enumerate per object it returns).
   */
  requestMs: number;
}

/** What the hub is built with: the defaults, or the options that override them. */
export interface HubSettings {
  pingIntervalMs: number;
  latencyMs: number;
}

/** A dialect's request handler: plain requests, WebSocket upgrades, and its own shutdown. */
export interface DialectServer {
  /** Answers one request; a rejection means it could not (the simulator logs it and drops the socket). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

export interface Dialect {
  family: DialectFamily;
  defaults: Readonly<DialectDefaults>;
  /** How it renders stored values (wire.ts). */
  wire: WireStyle;
  hub(faults: FaultSet, settings: HubSettings): EventHub;
  server(ctx: Context): DialectServer;
  /** How long a typical request (a GET of an object) takes at this request time, queueing aside. */
  typicalRequestMs(requestMs: number): number;
  /**
   * The most bytes of a request's head (request line and headers) the server reads, and what it does
   * with a longer one: answer 431, or close the connection without an answer. Unset: Node's 16 KiB
   * and 431.
   */
  headLimit?: { bytes: number; overflow: 'answer' | 'close' };
}

/**
 * For a server that models no cost per kind of request: each request waits its turn of
 * `requestMs` in the queue, then is answered (at once when the time is 0).
 */
export function inTurn(ctx: Context, answer: () => Promise<void>): Promise<void> {
  return ctx.requestMs === 0 ? answer() : ctx.service.serve(ctx.requestMs).then(answer);
}
