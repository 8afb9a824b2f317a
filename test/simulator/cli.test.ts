import { afterEach, describe, expect, it, vi } from 'vitest';
import { runSimulatorCli } from '../../simulator/main.js';
import { call } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('runSimulatorCli', () => {
  it('prints "listening <url>" first and, on SIGTERM, closes and resolves', async () => {
    const lines: string[] = [];
    let firstLine: (line: string) => void = () => {};
    const printed = new Promise<string>((resolve) => (firstLine = resolve));
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      firstLine(lines[0]!);
      return true;
    });
    const sigintBefore = process.listenerCount('SIGINT');
    const running = runSimulatorCli({ port: 0 });
    expect(await printed).toMatch(/^listening https:\/\/127\.0\.0\.1:\d+\n$/);
    const url = lines[0]!.slice('listening '.length).trim();
    expect((await call(url, 'POST', '/login', { json: { data: ['root', '0penBmc'] } })).status).toBe(200);
    process.emit('SIGTERM');
    await running;
    expect(process.listenerCount('SIGINT')).toBe(sigintBefore);
    await expect(call(url, 'GET', '/')).rejects.toThrow();
  });
});
