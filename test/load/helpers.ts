/** Runs the load command in this process, with the defaults commander would give, its output captured. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { vi } from 'vitest';
import { loadCommand, type LoadFlags } from '../../cli/load-command.js';
import type { LoadDocument } from '../../load/load-document.js';
import { runTempDir } from '../support/temp-dirs.js';

export interface LoadRun {
  exitCode: number;
  stdout: string;
  doc: LoadDocument;
  out: string;
}

export async function runLoadCommand(over: Partial<LoadFlags>): Promise<LoadRun> {
  const out = over.out ?? (await runTempDir('bmc-load-'));
  const flags: LoadFlags = {
    user: 'root',
    password: '0penBmc',
    namespace: 'mgmt_project',
    insecure: false,
    findCapacity: false,
    abortErrorRate: 10,
    tolerance: 20,
    writable: [],
    fault: [],
    out,
    ...over,
  };
  let stdout = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  });
  const before = process.exitCode;
  try {
    await loadCommand(flags);
  } finally {
    spy.mockRestore();
  }
  const exitCode = Number(process.exitCode ?? 0);
  process.exitCode = before;
  const doc = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadDocument;
  return { exitCode, stdout, doc, out };
}
