import { afterEach, describe, expect, it, vi } from 'vitest';
import { runSimulatorCli } from '../../simulator/main.js';
import { call } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('runSimulatorCli', () => {
  it('prints "listening <url>" first and exits 0 on SIGTERM after closing', async () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    let exitCode: number | undefined;
    const exited = new Promise<void>((resolve) => {
      vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
        exitCode = code;
        resolve();
      }) as never);
    });
    const sigintBefore = process.listenerCount('SIGINT');
    await runSimulatorCli({ port: 0 });
    expect(lines[0]).toMatch(/^listening https:\/\/127\.0\.0\.1:\d+\n$/);
    const url = lines[0].slice('listening '.length).trim();
    expect((await call(url, 'POST', '/login', { json: { data: ['root', '0penBmc'] } })).status).toBe(200);
    process.emit('SIGTERM');
    await exited;
    expect(exitCode).toBe(0);
    expect(process.listenerCount('SIGINT')).toBe(sigintBefore);
    await expect(call(url, 'GET', '/')).rejects.toThrow();
  });
});
