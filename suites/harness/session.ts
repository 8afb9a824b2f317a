/**
 * One client and one session per worker. Real BMCs keep few sessions (one keeps 16 and silently
 * evicts the oldest), so suites reuse the session the runner opened; the client logs in again once
 * if the target forgets it.
 */
import { inject } from 'vitest';
import { BmcClient } from '../../client/http.js';
import { EvidenceLog } from '../../client/evidence.js';
import type { SerializedCookies } from '../../client/http.js';
import type { RunConfig } from '../../runner/config.js';
import { noteAnswer } from './answers.js';
import { noteCause } from './event-ledger.js';
import { forgetEachRun } from '../../client/run-scoped.js';

let client: BmcClient | undefined;
let evidence: EvidenceLog | undefined;
forgetEachRun(() => {
  // The last run's target is gone: its connections are dropped, its session was the run's to end.
  void client?.drop();
  client = evidence = undefined;
});

export function sharedEvidence(): EvidenceLog {
  if (!evidence) {
    evidence = new EvidenceLog({ secrets: [inject('bmc').password] });
    // Every answer of the run, whichever area asked, is judged as an answer (ENV-1, ENV-4).
    evidence.onRecord(noteAnswer);
    // Every write, action, upload and DELETE, and what reads showed, is a cause the events oracle attributes events to.
    evidence.onRecord(noteCause);
  }
  return evidence;
}

export function clientOptions(cfg: RunConfig) {
  return {
    baseUrl: cfg.target,
    user: cfg.user,
    password: cfg.password,
    insecure: cfg.insecure,
    timeoutMs: cfg.timeoutMs,
    maxRequestsPerSecond: cfg.maxRequestsPerSecond,
    connections: cfg.connections,
    evidence: sharedEvidence(),
  };
}

export function sharedClient(): BmcClient {
  if (!client) {
    const cfg = inject('bmc');
    client = new BmcClient({ ...clientOptions(cfg), cookies: cfg.session as SerializedCookies | undefined });
  }
  return client;
}

/** A client with its own new session, for tests that log out or must not disturb the shared one. */
export async function freshSession(): Promise<BmcClient> {
  const c = sharedClient().fork();
  await c.login();
  return c;
}
