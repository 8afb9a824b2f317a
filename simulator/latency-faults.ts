/**
 * Latency faults: a slow BMC rather than a wrong one. They break no statement of the spec, so they
 * stay out of the FAULTS catalogue and the mutation self-test; they exist so that load thresholds,
 * baselines, the capacity search and soak drift can be shown failing. Each one holds a request back
 * before it is handled, as a busy BMC daemon does, so writes (and the events they cause) are late too.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface LatencyFaultInfo {
  name: string;
  description: string;
}

const REQUEST_DELAY_MS = 100;
const SERIAL_SERVICE_MS = 5;
const STALL_PERIOD_MS = 3_000;
const STALL_MS = 1_000;
const LEAK_REQUESTS_PER_MS = 200;

export const LATENCY_FAULTS = [
  { name: 'slow-requests', description: `every request waits ${REQUEST_DELAY_MS} ms before it is handled` },
  {
    name: 'slow-serial',
    description: `requests are handled one at a time, each holding the server for ${SERIAL_SERVICE_MS} ms (a single-threaded daemon: at most about ${1000 / SERIAL_SERVICE_MS} requests/s)`,
  },
  {
    name: 'slow-stalls',
    description: `the server stalls for ${STALL_MS / 1000} s in every ${STALL_PERIOD_MS / 1000} s; requests arriving meanwhile wait for the stall to end`,
  },
  {
    name: 'slow-leak',
    description: `each request waits 1 ms longer per ${LEAK_REQUESTS_PER_MS.toLocaleString('en')} requests served before it (a leak a soak run shows)`,
  },
] as const satisfies readonly LatencyFaultInfo[];

export const LATENCY_FAULT_NAMES: ReadonlySet<string> = new Set(LATENCY_FAULTS.map((f) => f.name));

/** The active latency faults of one simulator; `beforeRequest` is awaited before each request is handled. */
export class LatencyFaults {
  private readonly active: ReadonlySet<string>;
  private readonly startedAt = performance.now();
  private served = 0;
  private serialTail: Promise<void> = Promise.resolve();

  constructor(names: readonly string[]) {
    this.active = new Set(names.filter((n) => LATENCY_FAULT_NAMES.has(n)));
  }

  async beforeRequest(): Promise<void> {
    if (this.active.size === 0) return;
    const leakMs = this.served++ / LEAK_REQUESTS_PER_MS;
    if (this.active.has('slow-stalls')) await sleep(this.stallRemainingMs());
    if (this.active.has('slow-requests')) await sleep(REQUEST_DELAY_MS);
    // Timers round below 1 ms up to 1 ms: the leak starts to show once it has grown that far.
    if (this.active.has('slow-leak') && leakMs >= 1) await sleep(leakMs);
    if (this.active.has('slow-serial')) await this.serialTurn();
  }

  /** The stall is the last STALL_MS of each period, so a run sees the server healthy first. */
  private stallRemainingMs(): number {
    const phase = (performance.now() - this.startedAt) % STALL_PERIOD_MS;
    const stallStart = STALL_PERIOD_MS - STALL_MS;
    return phase >= stallStart ? STALL_PERIOD_MS - phase : 0;
  }

  /** One request at a time holds the server for SERIAL_SERVICE_MS; the others queue behind it. */
  private serialTurn(): Promise<void> {
    const turn = this.serialTail.then(() => sleep(SERIAL_SERVICE_MS));
    this.serialTail = turn;
    return turn;
  }
}
