/**
 * A server's time per request, served one request at a time: a single-threaded server
 * (phosphor-rest-server is bottle on one Python thread) spends its service time on each request,
 * and a request that arrives while another is served waits for it. The queue is a clock: the
 * server is busy until `busyUntil`, and each request's turn ends its service time after that.
 */

export interface ServiceQueueOptions {
  /** Milliseconds, monotonic (default performance.now). */
  now?: () => number;
}

export class ServiceQueue {
  private readonly now: () => number;
  private busyUntil = 0;
  private readonly waiting = new Map<NodeJS.Timeout, () => void>();
  private closed = false;

  constructor(opts: ServiceQueueOptions = {}) {
    this.now = opts.now ?? (() => performance.now());
  }

  /**
   * Resolves once the requests queued before this one were served and this one's `ms` passed.
   * A request of 0 ms costs nothing and waits for nobody (the server models no time).
   */
  serve(ms: number): Promise<void> {
    if (this.closed || !(ms > 0)) return Promise.resolve();
    const now = this.now();
    this.busyUntil = Math.max(now, this.busyUntil) + ms;
    const wait = this.busyUntil - now;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(timer);
        resolve();
      }, wait);
      this.waiting.set(timer, resolve);
    });
  }

  /** How long a request queued now would wait before its own service time starts. */
  backlogMs(): number {
    return Math.max(0, this.busyUntil - this.now());
  }

  /** The server stops: every queued request is released at once (its connection is going away). */
  close(): void {
    this.closed = true;
    for (const [timer, resolve] of this.waiting) {
      clearTimeout(timer);
      resolve();
    }
    this.waiting.clear();
  }
}
