/** Sockets a check is done with stay open for their quiet window, and the oracle waits for them. */
import { beforeEach, describe, expect, test } from 'vitest';
import { startNextRun } from '../../client/run-scoped.js';
import { closeLater, lingeringClosed } from '../../suites/harness/lingering.js';

class FakeSocket {
  closedAt?: number;
  async close(): Promise<void> {
    this.closedAt = performance.now();
  }
}

beforeEach(() => startNextRun());

describe('lingering subscriptions', () => {
  test('a socket stays open for its window and closes after it; the wait ends when every one has closed', async () => {
    const early = new FakeSocket();
    const late = new FakeSocket();
    const start = performance.now();
    closeLater(early, 20);
    closeLater(late, 80);
    expect(early.closedAt).toBeUndefined();
    await lingeringClosed();
    expect(early.closedAt! - start).toBeGreaterThanOrEqual(19);
    expect(late.closedAt! - start).toBeGreaterThanOrEqual(79);
    expect(late.closedAt!).toBeGreaterThanOrEqual(early.closedAt!);
  });

  test('a window already over closes the socket at once', async () => {
    const s = new FakeSocket();
    closeLater(s, -5);
    await lingeringClosed();
    expect(s.closedAt).toBeDefined();
  });

  test('the next run closes what the last one left open, and does not wait for it', async () => {
    const s = new FakeSocket();
    closeLater(s, 60_000);
    startNextRun();
    await Promise.resolve();
    expect(s.closedAt).toBeDefined();
    await lingeringClosed();
  });

  test('a socket whose close fails still counts as closed', async () => {
    closeLater({ close: () => Promise.reject(new Error('gone')) }, 1);
    await expect(lingeringClosed()).resolves.toBeUndefined();
  });
});
