/**
 * A fake subscriber and a fake target for the event engine's tests: sockets whose messages arrive
 * on timers (vitest's fake clock), and a writer whose each change reaches the sockets a rule picks,
 * after a latency. No socket, no server, no real time.
 */
import type { EventPredicate, ReceivedEvent } from '../../client/subscriber.js';
import type { PrimeWrite } from '../../suites/events/engine/prime.js';
import type { EventSocket, Subscription } from '../../suites/events/engine/subscription.js';

export class FakeSocket implements EventSocket {
  readonly events: ReceivedEvent[] = [];
  closeInfo: { code: number; reason: string } | undefined;
  private readonly waiters = new Set<() => void>();

  get closed(): boolean {
    return this.closeInfo !== undefined;
  }

  mark(): number {
    return this.events.length;
  }

  push(data: unknown): void {
    if (this.closed) return;
    this.events.push({ at: performance.now(), seq: this.events.length, data, raw: JSON.stringify(data) });
    for (const w of [...this.waiters]) w();
  }

  /** The target closes the socket. */
  shut(code = 1011, reason = ''): void {
    this.closeInfo = { code, reason };
    for (const w of [...this.waiters]) w();
  }

  async close(): Promise<void> {
    this.closeInfo ??= { code: 1000, reason: '' };
  }

  async waitFor(pred: EventPredicate, timeoutMs: number, opts: { from?: number } = {}): Promise<ReceivedEvent> {
    return (await this.waitForCount(pred, 1, timeoutMs, opts))[0]!;
  }

  waitForCount(pred: EventPredicate, count: number, timeoutMs: number, opts: { from?: number } = {}): Promise<ReceivedEvent[]> {
    const found = () => this.events.slice(opts.from ?? 0).filter((e) => pred(e.data));
    return new Promise((resolve, reject) => {
      const look = (): void => {
        if (found().length >= count) finish(() => resolve(found().slice(0, count)));
        else if (this.closed) finish(() => reject(new Error('closed')));
      };
      const timer = setTimeout(() => finish(() => reject(new Error('timeout'))), timeoutMs);
      const finish = (fn: () => void): void => {
        clearTimeout(timer);
        this.waiters.delete(look);
        fn();
      };
      this.waiters.add(look);
      look();
    });
  }
}

export function subscription(what: string, socket = new FakeSocket()): Subscription & { socket: FakeSocket } {
  return { socket, filter: { paths: [what] }, what };
}

/**
 * A target with one attribute: each write's change reaches, after `latencyMs`, the sockets
 * `deliver(socket, writeNumber)` picks (write numbers from 1).
 */
export class FakeTarget {
  readonly written: number[] = [];
  constructor(
    readonly sockets: FakeSocket[],
    readonly latencyMs: number,
    readonly deliver: (socket: FakeSocket, write: number) => boolean = () => true,
  ) {}

  readonly write = async (): Promise<PrimeWrite> => {
    const value = this.written.length + 1;
    this.written.push(performance.now());
    setTimeout(() => {
      for (const s of this.sockets)
        if (this.deliver(s, value)) s.push({ event: 'PropertiesChanged', path: '/a', properties: { V: value } });
    }, this.latencyMs);
    return { at: performance.now(), carries: (d) => (d as { properties?: { V?: unknown } }).properties?.V === value };
  };
}
