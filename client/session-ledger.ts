/**
 * Sessions this process (or worker thread) opened and closed: a run must log out of every session
 * it opened, and says so with these two numbers.
 */
import { forgetEachRun } from './run-scoped.js';

export interface SessionCounts {
  opened: number;
  closed: number;
}

const counts: SessionCounts = { opened: 0, closed: 0 };
forgetEachRun(() => (counts.opened = counts.closed = 0));

export function sessionOpened(): void {
  counts.opened++;
}

export function sessionClosed(): void {
  counts.closed++;
}

export function sessionCounts(): SessionCounts {
  return { ...counts };
}
