/** The dialects by name: each one's defaults, value rendering, event hub and request handler. */
import { EventHub } from '../events.js';
import { BmcwebHub } from './bmcweb/events.js';
import { BmcwebServer } from './bmcweb/server.js';
import type { BmcwebVersion } from './bmcweb/versions.js';
import type { Dialect, DialectDefaults, DialectFamily, DialectName } from './dialect.js';
import { PhosphorHub } from './phosphor/events.js';
import { PhosphorRestServer, serviceMs } from './phosphor/server.js';
import { SpecServer } from './spec.js';
import { BMCWEB_WIRE, PHOSPHOR_WIRE, SPEC_WIRE } from './wire.js';

const SPEC: Dialect = {
  family: 'spec',
  defaults: { eventLatencyMs: 0, uploadFailDelayMs: 0, pingIntervalMs: 20_000, requestMs: 0 },
  wire: SPEC_WIRE,
  hub: (faults, s) => new EventHub(faults, s.pingIntervalMs, s.latencyMs > 0 ? { latencyMs: s.latencyMs } : {}),
  server: (ctx) => new SpecServer(ctx),
  typicalRequestMs: (requestMs) => requestMs,
};

/**
 * EventNotifier sleeps 5 s between loop polls, events were measured 0-2 s late;
 * ImageUploadUtils.do_upload polls 10 times a second apart; send_ws_ping every 45 s. One thread
 * serves its requests, one at a time: 10 ms a plain request (a 404, a listing), ~30 ms a GET of an
 * object, more for enumerate, writes and uploads; the server queues each answer by its kind
 * (phosphor/server.ts serviceMs).
 */
const PHOSPHOR_REST: Dialect = {
  family: 'phosphor-rest',
  defaults: { eventLatencyMs: 2_000, uploadFailDelayMs: 10_000, pingIntervalMs: 45_000, requestMs: 10 },
  wire: PHOSPHOR_WIRE,
  hub: (faults, s) =>
    new PhosphorHub(faults, s.pingIntervalMs, { latencyMs: s.latencyMs, terminateOnMissedPong: false, pingPayload: 'ping' }),
  server: (ctx) => new PhosphorRestServer(ctx),
  typicalRequestMs: (requestMs) => serviceMs(requestMs, { objects: 1 }),
};

/**
 * image_upload.hpp gives up after a 15 s timer; C++, its time per request is not modelled.
 * http/http_connection.hpp reads a request's head into `flat_static_buffer<8192>` with
 * `header_limit(httpHeaderLimit)`, `httpHeaderLimit = 8192` (lines 53, 71, 655 at a87c4180; 71, 292,
 * 965 at 7debb8928f3d): a longer head (a path segment of thousands of characters) is a read error.
 * In 2023 every read error closes the connection without an answer (async_read_header's handler:
 * `if (errorWhileReading) { close(); return; }`, lines 443-473 at a87c4180); since "Fix large
 * content error codes" (1d1d7784f7, 2024) `error::header_limit` answers 431 and closes
 * (afterReadHeaders, lines 621-630 at 7debb8928f3d).
 */
function bmcweb(version: BmcwebVersion): Dialect {
  return {
    headLimit: { bytes: 8192, overflow: version === '2023' ? 'close' : 'answer' },
    family: 'bmcweb',
    defaults: { eventLatencyMs: 0, uploadFailDelayMs: 15_000, pingIntervalMs: 20_000, requestMs: 0 },
    wire: BMCWEB_WIRE,
    hub: (faults, s) => new BmcwebHub(faults, s.pingIntervalMs, { latencyMs: s.latencyMs }),
    server: (ctx) => new BmcwebServer(ctx, version),
    typicalRequestMs: (requestMs) => requestMs,
  };
}

const DIALECT_TABLE: Readonly<Record<DialectName, Dialect>> = {
  spec: SPEC,
  'phosphor-rest': PHOSPHOR_REST,
  bmcweb: bmcweb('current'),
  'bmcweb@2023': bmcweb('2023'),
};

export function dialectNamed(name: DialectName): Dialect {
  return DIALECT_TABLE[name];
}

export function dialectFamily(name: DialectName): DialectFamily {
  return dialectNamed(name).family;
}

export function dialectDefaults(name: DialectName): Readonly<DialectDefaults> {
  return dialectNamed(name).defaults;
}
