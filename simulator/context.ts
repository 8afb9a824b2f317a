/**
 * What every dialect's request handler works in: the tree and its bus, the parts that act on it,
 * the account, the faults and the server's pace. Built once per simulator, whichever the dialect.
 */
import { Actions } from './actions.js';
import { Bus } from './bus.js';
import type { EventHub } from './events.js';
import type { FaultSet } from './faults.js';
import { HostStateMachine } from './host-state.js';
import { Listings } from './listings.js';
import { UPLOAD_LIMIT } from './request-body.js';
import { SoftwareRegistry } from './software.js';
import { Writer } from './writes.js';
import { ServiceQueue } from './dialects/service-time.js';
import type { WireStyle } from './dialects/wire.js';

export interface Context {
  bus: Bus;
  faults: FaultSet;
  hub: EventHub;
  hostState: HostStateMachine;
  writer: Writer;
  listings: Listings;
  actions: Actions;
  registry: SoftwareRegistry;
  namespace: string;
  /** The one account the simulator knows. */
  user: string;
  password: string;
  /** Plain HTTP (the http-plain fault): cookies lose their Secure flag. */
  plain: boolean;
  /** The server's time per request (the dialect's default, or the option's), and its queue. */
  requestMs: number;
  service: ServiceQueue;
  log: (message: string) => void;
}

/** What the context is built from: its given parts, and what the tree and its services are made with. */
export type ContextSettings = Pick<Context, 'faults' | 'hub' | 'namespace' | 'user' | 'password' | 'plain' | 'requestMs' | 'log'> & {
  wire: WireStyle;
  /** Logging entries and extra generated objects in the tree. */
  entries: number;
  objects: number;
  transitionDelayMs: number;
  uploadFailDelayMs: number;
};

export function createContext(settings: ContextSettings): Context {
  const { wire, entries, objects, transitionDelayMs, uploadFailDelayMs, ...given } = settings;
  const { faults, namespace } = given;
  const bus = new Bus(given.hub, faults, { namespace, faults, entries, objects }, wire);
  const hostState = new HostStateMachine(bus, transitionDelayMs);
  const registry = new SoftwareRegistry(bus, { failDelayMs: uploadFailDelayMs });
  return {
    ...given,
    bus,
    hostState,
    registry,
    writer: new Writer(bus, hostState),
    listings: new Listings(bus),
    actions: new Actions(bus, registry, hostState, { timeoutMs: 5_000, maxBytes: UPLOAD_LIMIT }),
    service: new ServiceQueue(),
  };
}
