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
/** Growth of the leak's delay per second the server has been up, up to its cap. */
const LEAK_MS_PER_S = 50;
const LEAK_CAP_MS = 2_000;

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
    description: `each request waits ${LEAK_MS_PER_S} ms longer for every second since the server's first request, up to ${LEAK_CAP_MS / 1000} s (a leak a soak run shows)`,
  },
] as const satisfies readonly LatencyFaultInfo[];

export const LATENCY_FAULT_NAMES: ReadonlySet<string> = new Set(LATENCY_FAULTS.map((f) => f.name));

/** The active latency faults of one simulator; `beforeRequest` is awaited before each request is handled. */
export class LatencyFaults {
  private readonly active: ReadonlySet<string>;
  private readonly startedAt = performance.now();
  private serialTail: Promise<void> = Promise.resolve();
  private firstRequestAt: number | undefined;

  constructor(names: readonly string[]) {
    this.active = new Set(names.filter((n) => LATENCY_FAULT_NAMES.has(n)));
  }

  async beforeRequest(): Promise<void> {
    if (this.active.size === 0) return;
    if (this.active.has('slow-stalls')) await sleep(this.stallRemainingMs());
    if (this.active.has('slow-requests')) await sleep(REQUEST_DELAY_MS);
    // Grown with time, not with requests served: a busy machine serving fewer requests sees the same
    // drift, so a soak shows it whatever else runs beside.
    if (this.active.has('slow-leak')) await sleep(this.leakMs());
    if (this.active.has('slow-serial')) await this.serialTurn();
  }

  private leakMs(): number {
    const now = performance.now();
    this.firstRequestAt ??= now;
    return Math.min(LEAK_CAP_MS, ((now - this.firstRequestAt) / 1000) * LEAK_MS_PER_S);
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
