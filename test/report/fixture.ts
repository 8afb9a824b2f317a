/** Results of a made-up run, for rendering tests that need no target. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REQUIREMENTS } from '../../catalogue/requirements.js';
import type { Exchange } from '../../client/evidence.js';
import { summarize, type Results, type Verdict } from '../../client/results.js';
import type { ReportContext } from '../../report/output.js';
import { toolInfo } from '../../report/tool-info.js';

export const EXCHANGE: Exchange = {
  at: '2026-01-02T03:04:05.000Z',
  method: 'POST',
  url: '/xyz/mgmt_project/created',
  requestHeaders: { cookie: 'sid=<redacted>', 'content-type': 'application/json' },
  requestBody: '{"data":{"Message":"probe"}}',
  status: 405,
  statusLine: '405 Method Not Allowed',
  responseHeaders: { 'content-type': 'application/json' },
  responseBody: '{"data":{"description":"no"},"message":"405 Method Not Allowed","status":"error"}',
  durationMs: 1.5,
};

/** Every catalogue requirement PASSes with one test, except the verdicts given. */
export function resultsWith(
  verdicts: Record<string, { verdict: Verdict; reason?: string; expected?: string; evidence?: Exchange[] }> = {},
): Results {
  const requirements = REQUIREMENTS.map((r) => {
    const v = verdicts[r.id];
    const verdict = v?.verdict ?? 'PASS';
    const testVerdict: Verdict = verdict === 'XFAIL' ? 'FAIL' : verdict === 'XPASS' ? 'PASS' : verdict;
    return {
      id: r.id,
      level: r.level,
      section: r.section,
      title: r.title,
      verdict,
      ...(v?.reason !== undefined && { reason: v.reason }),
      ...(v?.expected !== undefined && { expected: v.expected }),
      tests: [
        {
          name: `[${r.id}] test of ${r.id}`,
          verdict: testVerdict,
          ...(v?.reason !== undefined && { reason: v.reason }),
          ...(v?.evidence && { evidence: v.evidence }),
        },
      ],
    };
  });
  return {
    target: 'https://bmc.example:443',
    namespace: 'mgmt_project',
    profile: 'safe',
    startedAt: '2026-01-02T03:04:00.000Z',
    durationMs: 12_345,
    seed: 42,
    summary: summarize(requirements),
    requirements,
    observations: [],
  };
}

export function context(results: Results, extra: Partial<ReportContext> = {}): ReportContext {
  return {
    dir: '/nonexistent',
    results,
    tool: toolInfo(),
    redact: (t) => t,
    write: async () => {},
    ...extra,
  };
}

/** Temporary folders of a test file, removed after it. */
export function temporaryFolders(): { make(prefix: string): Promise<string>; removeAll(): Promise<void> } {
  const made: string[] = [];
  return {
    async make(prefix) {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    async removeAll() {
      await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
    },
  };
}
