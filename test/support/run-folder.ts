/** A run folder as `replay` reads it: a results.json holding one failing test with the evidence given. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Exchange } from '../../client/evidence.js';
import type { Results } from '../../client/results.js';

export interface FailingTest {
  requirement: string;
  reason: string;
  evidence: Exchange[];
  target?: string;
  insecure?: true;
}

export async function writeRunFolder(folder: string, t: FailingTest): Promise<string> {
  await mkdir(folder, { recursive: true });
  const results: Results = {
    target: t.target ?? 'https://bmc.example',
    ...(t.insecure && { insecure: t.insecure }),
    namespace: 'mgmt_project',
    profile: 'destructive',
    startedAt: t.evidence[0]?.at ?? new Date(0).toISOString(),
    durationMs: 1,
    seed: 1,
    summary: { PASS: 0, FAIL: 1, WARN: 0, NOT_TESTED: 0, XFAIL: 0, XPASS: 0 },
    requirements: [
      {
        id: t.requirement,
        level: 'MUST',
        section: '',
        title: '',
        verdict: 'FAIL',
        reason: t.reason,
        tests: [{ name: `[${t.requirement}] the failing test`, verdict: 'FAIL', reason: t.reason, evidence: t.evidence }],
      },
    ],
    observations: [],
  };
  await writeFile(join(folder, 'results.json'), JSON.stringify(results));
  return folder;
}

let clock = Date.parse('2026-01-01T00:00:00Z');

/** One exchange of the evidence, 20 ms after the one before, sent with the session cookie unless headers say otherwise. */
export function exchange(method: string, url: string, status: number, extra: Partial<Exchange> = {}): Exchange {
  clock += 20;
  return { at: new Date(clock).toISOString(), method, url, requestHeaders: { Cookie: '<redacted>' }, status, durationMs: 1, ...extra };
}

/** The evidence of EP-1 on a target that refuses the spec's login body: the login alone. */
export function refusedLogin(): Exchange {
  return exchange('POST', '/login', 400, {
    requestHeaders: { 'Content-Type': 'application/json' },
    requestBody: '{"data":["root","***"]}',
  });
}
