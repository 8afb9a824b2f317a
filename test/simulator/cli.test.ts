import { afterEach, describe, expect, it, vi } from 'vitest';
import { runSimulatorCli } from '../../simulator/main.js';
import { call } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('runSimulatorCli', () => {
  it('prints "listening <url>" first and, on SIGTERM, closes and resolves with 143', async () => {
    const lines: string[] = [];
    let firstLine: (line: string) => void = () => {};
    const printed = new Promise<string>((resolve) => (firstLine = resolve));
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      firstLine(lines[0]!);
      return true;
    });
    const sigintBefore = process.listenerCount('SIGINT');
    const sigtermBefore = process.listeners('SIGTERM');
    const running = runSimulatorCli({ port: 0 });
    expect(await printed).toMatch(/^listening https:\/\/127\.0\.0\.1:\d+\n$/);
    const url = lines[0]!.slice('listening '.length).trim();
    expect((await call(url, 'POST', '/login', { json: { data: ['root', '0penBmc'] } })).status).toBe(200);
    // Its own handler, called as the signal would: emitting SIGTERM on the process would also reach
    // handlers other code in this worker left (one that re-raises it ends the worker).
    const added = process.listeners('SIGTERM').filter((l) => !sigtermBefore.includes(l));
    expect(added).toHaveLength(1);
    added[0]!('SIGTERM');
    expect(await running).toBe(143);
    expect(process.listenerCount('SIGINT')).toBe(sigintBefore);
    await expect(call(url, 'GET', '/')).rejects.toThrow();
  });
});
