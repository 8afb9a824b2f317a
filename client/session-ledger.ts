/**
 * Sessions opened and closed: a run must log out of every session it opened, and says so with
 * these two numbers. A client counts in the ledger it is given (a run gives its own to the clients
 * of its runner, so that two runs in one process keep apart), else in its thread's.
 */
import { forgetEachRun } from './run-scoped.js';

export interface SessionCounts {
  opened: number;
  closed: number;
}

export class SessionLedger {
  private readonly n: SessionCounts = { opened: 0, closed: 0 };

  opened(): void {
    this.n.opened++;
  }

  closed(): void {
    this.n.closed++;
  }

  counts(): SessionCounts {
    return { ...this.n };
  }

  reset(): void {
    this.n.opened = this.n.closed = 0;
  }
}

/** The sessions of the clients given no ledger of their own (the suites', in their thread). */
export const threadSessions = new SessionLedger();
forgetEachRun(() => threadSessions.reset());
