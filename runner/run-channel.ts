/**
 * The line between a run (main thread) and its suites (a vitest worker thread): the run tells them
 * when it is interrupted; the suites' clients send what they met (outages) and the sessions
 * they opened and closed, so that the run can record the downtime and close every session.
 */
import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import { BmcClient, type ClientOptions } from '../client/http.js';
import { BmcClientError, type Outage, type SessionLoss } from '../client/errors.js';
import {
  abandonRequests,
  interruptRequests,
  interruptedBy,
  onClientEvent,
  setClientDefaults,
  type ClientEvent,
} from '../client/run-context.js';
import type { RunConfig } from './config.js';
import type { SessionLedger } from '../client/session-ledger.js';
import { startNextRun } from '../client/run-scoped.js';
import { notRunNote } from '../client/results.js';
import { TreeReadTally } from '../client/tree-reads.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The name of the run's channel: one per run, so that runs in one process keep apart. */
    runChannel: string;
  }
}

type RunMessage =
  | { type: 'joined' }
  | { type: 'interrupt'; reason: string }
  /** The test whose requests in flight were abandoned: it was cut short. */
  | { type: 'cut-short'; test: string }
  | ClientEvent;

/**
 * The test running when the signal came gets this long to finish and restore what it wrote; after
 * half of it, its requests in flight are abandoned to hurry it.
 */
export const RESTORE_GRACE_MS = 10_000;

/** Logging out a session left open gets this long, so a target that is gone cannot hold the run. */
const LOGOUT_TIMEOUT_MS = 5_000;

let worker: WorkerSide | undefined;

/** Worker side, once per worker: the run's client settings, its interruption, and reports back to it. */
export function joinRun(cfg: RunConfig, channel: string): WorkerSide {
  if (worker && worker.name !== channel) {
    // A worker kept from an earlier run (lean runs keep theirs): what that run kept goes first.
    worker.leave();
    worker = undefined;
    startNextRun();
  }
  worker ??= new WorkerSide(cfg, channel);
  return worker;
}

class WorkerSide {
  private readonly channel: BroadcastChannel;
  /** The test running now. */
  private current?: string;
  /** The area whose file runs now (its hooks included). */
  private area?: string;

  constructor(
    cfg: RunConfig,
    readonly name: string,
  ) {
    this.channel = new BroadcastChannel(name);
    setClientDefaults({ maxResponseBytes: cfg.maxResponseBytes, outageWaitMs: cfg.rebootWaitMs });
    this.channel.unref();
    this.channel.onmessage = (event) => {
      const message = (event as { data: RunMessage }).data;
      if (message.type === 'interrupt') this.interrupt(message.reason);
    };
    onClientEvent((event) =>
      this.channel.postMessage(
        event.type === 'tree-read' ? { ...event, read: { ...event.read, area: this.area, test: this.current } } : event,
      ),
    );
    // An interruption that came before the worker listened is sent again in answer.
    this.channel.postMessage({ type: 'joined' } satisfies RunMessage);
  }

  /** The run is over: its channel closes. */
  leave(): void {
    this.channel.close();
  }

  /** A suite file starts: what its hooks and tests read is its area's. */
  entersFile(file: string): void {
    this.area = /([a-z-]+)\.suite\.[jt]s$/.exec(file)?.[1] ?? file;
  }

  /** Before a test: once the run is interrupted none starts; returns why. */
  starts(test: string): string | undefined {
    const reason = interruptedBy();
    if (reason) return notRunNote(reason);
    this.current = test;
    return undefined;
  }

  ends(): void {
    this.current = undefined;
  }

  /** The test running now may finish; if it takes half the grace, its requests in flight are abandoned. */
  private interrupt(reason: string): void {
    if (interruptedBy()) return;
    interruptRequests(reason);
    const test = this.current;
    if (test === undefined) return;
    setTimeout(() => {
      if (this.current !== test) return;
      abandonRequests();
      this.channel.postMessage({ type: 'cut-short', test } satisfies RunMessage);
    }, RESTORE_GRACE_MS / 2).unref();
  }
}

/** Logs a session out; once more when the network lost the first attempt. True when it was ended. */
async function logout(client: BmcClient): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const outcome = await client.logout().then(
      (res) => res.status >= 200 && res.status < 300,
      (err: unknown) => err,
    );
    if (!(outcome instanceof BmcClientError && outcome.fault !== undefined)) return outcome === true;
  }
  return false;
}

/** Main side: what the suites' clients reported, and the interruption to send them. */
export class RunLedger {
  readonly outages: Outage[] = [];
  /** Working sessions the target refused without a logout of the run's. */
  readonly sessionLosses: SessionLoss[] = [];
  /** Tests whose requests were abandoned after the interruption. */
  readonly cutShort = new Set<string>();
  /** The whole-tree reads of the suites (their thread) and of the runner's own clients (this thread). */
  readonly treeReads = new TreeReadTally();
  readonly channelName = `bmc-conformance:run:${randomUUID()}`;
  private readonly sessions = new Map<string, ClientEvent & { type: 'session' }>();
  private readonly channel = new BroadcastChannel(this.channelName);
  private interrupted?: string;
  private readonly stopListening: () => void;

  constructor() {
    this.channel.unref();
    this.channel.onmessage = (event) => this.receive((event as { data: RunMessage }).data);
    // The runner's own clients (preflight, leave-no-trace) tell this thread's listeners.
    this.stopListening = onClientEvent((event) => {
      if (event.type === 'tree-read') this.treeReads.add(event.read);
    });
  }

  interrupt(reason: string): void {
    this.interrupted = reason;
    this.channel.postMessage({ type: 'interrupt', reason } satisfies RunMessage);
  }

  /**
   * Logs out the run's own session (`run`), then every session the suites opened and did not
   * close (a re-login after a restart, a test stopped before its own logout): one after another
   * within the run's rate cap, each bounded; none when the target went away for good. Those it
   * ends are counted closed in the run's ledger (`options.sessions`).
   */
  async closeSessions(run: BmcClient, options: Omit<ClientOptions, 'cookies'> & { sessions: SessionLedger }): Promise<void> {
    // Messages posted just before the worker ended are delivered on a later turn.
    await new Promise((resolve) => setImmediate(resolve));
    const open = [...this.sessions.values()];
    this.sessions.clear();
    if (this.outages.at(-1)?.back === false) return;
    await logout(run);
    if (open.length === 0) return;
    const base = new BmcClient({ ...options, timeoutMs: LOGOUT_TIMEOUT_MS, outageWaitMs: 0 });
    for (const session of open) {
      const client = base.fork({ cookies: session.cookies });
      // Opened in the suites' thread and counted there; ended here, so counted closed here.
      if (await logout(client)) options.sessions.closed();
      await client.close();
    }
    await base.close();
  }

  close(): void {
    this.stopListening();
    this.channel.close();
  }

  private receive(message: RunMessage): void {
    if (message.type === 'joined' && this.interrupted) this.interrupt(this.interrupted);
    else if (message.type === 'outage') this.outages.push(message.outage);
    else if (message.type === 'session-lost') this.sessionLosses.push(message.loss);
    else if (message.type === 'cut-short') this.cutShort.add(message.test);
    else if (message.type === 'tree-read') this.treeReads.add(message.read);
    else if (message.type === 'session') {
      if (message.open) this.sessions.set(message.key, message);
      else this.sessions.delete(message.key);
    }
  }
}
