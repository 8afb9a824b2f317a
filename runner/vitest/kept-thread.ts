/**
 * One suites' worker thread kept across the lean runs of a process. vitest ends a run's worker when
 * the run ends; a lean run (the mutation self-test runs one per fault) then spent most of its CPU
 * starting the next one and loading the same modules into it. This pool keeps the thread: vitest's
 * "stop" is answered here instead of ending it, and a later run's "start" is answered here too (the
 * worker is set up already). What the suites keep per run is reset when the next run joins
 * (`startNextRun`, called by `joinRun`).
 *
 * A forced stop (a cancelled run) ends the thread for real; the next run starts a new one.
 */
import { ThreadsPoolWorker, type PoolRunnerInitializer } from 'vitest/node';

type PoolWorker = ReturnType<PoolRunnerInitializer['createPoolWorker']>;
type PoolOptions = Parameters<PoolRunnerInitializer['createPoolWorker']>[0];
type Listener = (arg: unknown) => void;

const NAME = 'kept-thread';

interface Kept {
  thread: ThreadsPoolWorker;
  /** The thread is made (its output piped once). */
  made: boolean;
  /** The worker was sent vitest's first "start": later runs find it set up. */
  started: boolean;
}

export interface KeptThreadPool {
  pool: PoolRunnerInitializer;
  /** Ends the kept thread, if there is one. */
  close(): Promise<void>;
}

export function keptThreadPool(): KeptThreadPool {
  let kept: Kept | undefined;
  const end = async (k: Kept) => {
    if (kept === k) kept = undefined;
    await k.thread.stop().catch(() => undefined);
  };
  const pool: PoolRunnerInitializer = {
    name: NAME,
    createPoolWorker: (options: PoolOptions): PoolWorker => {
      const k = (kept ??= { thread: new ThreadsPoolWorker(options), made: false, started: false });
      return new RunOnKeptThread(
        k,
        () => end(k),
        () => kept === k && (kept = undefined),
      );
    },
  };
  return { pool, close: async () => void (kept && (await end(kept))) };
}

/** One run's view of the kept thread: what vitest attaches is detached at its stop, the thread stays. */
class RunOnKeptThread implements PoolWorker {
  readonly name = NAME;
  private readonly listeners: Array<[string, Listener]> = [];
  private stopAsked = false;

  constructor(
    private readonly kept: Kept,
    private readonly end: () => Promise<void>,
    private readonly forget: () => void,
  ) {}

  async start(): Promise<void> {
    // ThreadsPoolWorker.start makes the thread once; each call would pipe its output once more.
    if (this.kept.made) return;
    await this.kept.thread.start();
    this.kept.made = true;
    // A thread that died is not offered to the next run.
    this.kept.thread.on('exit', this.forget);
  }

  on(event: string, callback: Listener): void {
    this.listeners.push([event, callback]);
    this.kept.thread.on(event, callback);
  }

  off(event: string, callback: Listener): void {
    const i = this.listeners.findIndex(([e, c]) => e === event && c === callback);
    if (i >= 0) this.listeners.splice(i, 1);
    this.kept.thread.off(event, callback);
  }

  send(message: Parameters<PoolWorker['send']>[0]): void {
    if (message.type === 'start' && this.kept.started) return this.answer('started');
    if (message.type === 'stop') {
      // Answered here: the worker's own stop would tear it down for good.
      this.stopAsked = true;
      return this.answer('stopped');
    }
    if (message.type === 'start') this.kept.started = true;
    this.kept.thread.send(message);
  }

  async stop(): Promise<void> {
    for (const [event, callback] of this.listeners.splice(0)) this.kept.thread.off(event, callback);
    // Stopped without asking the worker first: vitest forces it (a cancelled run), so it ends.
    if (!this.stopAsked) await this.end();
  }

  deserialize(data: unknown): unknown {
    return data;
  }

  /** Gives vitest the worker's answer as if the worker had sent it. */
  private answer(type: 'started' | 'stopped'): void {
    const response = { type, __vitest_worker_response__: true };
    queueMicrotask(() => {
      for (const [event, callback] of [...this.listeners]) if (event === 'message') callback(response);
    });
  }
}
