/** The targets file: validated by its schema; a password written into it is refused with one sentence. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { packageRoot } from '../../client/package-root.js';
import { loadTargets } from '../../runner/fleet/targets-file.js';
import { UsageError } from '../../client/usage-error.js';

let dir: string;
const PROFILE = join(packageRoot(), 'profiles', 'bmcweb.json');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bmc-targets-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(doc: unknown): Promise<Awaited<ReturnType<typeof loadTargets>>> {
  const file = join(dir, `t-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return loadTargets(file);
}

const entry = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  url: 'https://10.0.0.5',
  passwordEnv: 'BMC5_PASSWORD',
  targetProfile: PROFILE,
  ...extra,
});

describe('loadTargets', () => {
  test("defaults: the name from the URL, user root, the platform from the profile; a relative profile is read from the file's folder", async () => {
    await writeFile(join(dir, 'p.json'), JSON.stringify({ platform: 'lab platform' }));
    const [a, b] = await load({
      targets: [
        entry(),
        entry({ url: 'https://bmc-7.lab:8443/', name: 'seven', user: 'admin', targetProfile: 'p.json', platform: 'X', insecure: true }),
      ],
    });
    expect(a).toMatchObject({
      name: '10.0.0.5',
      url: 'https://10.0.0.5',
      user: 'root',
      platform: 'bmcweb',
      insecure: false,
      targetProfile: PROFILE,
    });
    expect(b).toMatchObject({
      name: 'seven',
      url: 'https://bmc-7.lab:8443',
      user: 'admin',
      platform: 'X',
      insecure: true,
      targetProfile: join(dir, 'p.json'),
    });
  });

  test.each([
    [
      'a password member',
      { targets: [entry({ name: 'rack1', password: 'hunter2' })] },
      /^Target "rack1" in .* gives its password inline; .*"passwordEnv"\.$/,
    ],
    [
      'a password in the URL',
      { targets: [entry({ url: 'https://root:hunter2@10.0.0.5' })] },
      /^Target #1 in .* gives its password inline \(in the URL\); .*\.$/,
    ],
  ])('%s is refused with one sentence that does not repeat it', async (_what, doc, message) => {
    const err = await load(doc).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain('hunter2');
  });

  test.each([
    ['not JSON', '{ targets: ', /is not valid JSON\.$/],
    ['no targets', { targets: [] }, /"targets" must NOT have fewer than 1 items\.$/],
    ['no passwordEnv', { targets: [{ url: 'https://a', targetProfile: PROFILE }] }, /"targets\.0" needs "passwordEnv"\.$/],
    ['an unknown member', { targets: [entry({ secretz: 1 })] }, /unknown member "secretz" at "targets\.0"\.$/],
    ['a URL that is not one', { targets: [entry({ url: 'bmc5' })] }, /"targets\.0\.url" must be an http\(s\) URL\.$/],
    ['a name that is no folder name', { targets: [entry({ name: '../up' })] }, /"targets\.0\.name" must match pattern/],
    [
      'two targets of one name',
      { targets: [entry({ name: 'a' }), entry({ name: 'a', url: 'https://b' })] },
      /two targets named "a"; give each a unique name\.$/,
    ],
    ['a target named as a report file', { targets: [entry({ name: 'fleet.json' })] }, /the name of a fleet report file; rename it\.$/],
    [
      'a profile that is missing',
      { targets: [entry({ targetProfile: 'nowhere.json' })] },
      /The target profile .*nowhere\.json cannot be read\.$/,
    ],
  ])('%s: one sentence', async (_what, doc, message) => {
    const err = await load(doc).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(message);
  });
});
