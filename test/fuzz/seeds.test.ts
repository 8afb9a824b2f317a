/**
 * No verdict depends on the seed: several seeds of every fuzzing property against the clean
 * simulator and one that decodes invalid UTF-8 leniently (field behaviour the spec leaves open)
 * find no violation; against each field dialect, none beyond the dialect's true deviations.
 * `npm test` tries six seeds; `npm run seed-matrix` (BMC_FUZZ_SEEDS=20) twenty.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { FuzzProperty } from '../../suites/fuzz/runner.js';
import { searchProperty } from '../../suites/fuzz/runner.js';
import { anonymousProperty } from '../../suites/fuzz/properties/anonymous.js';
import { envelopeProperty } from '../../suites/fuzz/properties/envelope.js';
import { loginProperty } from '../../suites/fuzz/properties/login.js';
import { serverErrorProperty } from '../../suites/fuzz/properties/server-error.js';
import { stabilityProperty } from '../../suites/fuzz/properties/stability.js';
import { writeProperty, writeTargets } from '../../suites/fuzz/properties/write.js';
import type { SimulatorOptions } from '../../simulator/index.js';
import { BMCWEB, BMCWEB_2023, PHOSPHOR_REST, type Expected } from '../dialects/tables.js';
import { fuzzTarget, type FuzzTarget } from './target.js';
import { hangAfter } from '../support/hang.js';

const SEED_COUNT = Number(process.env.BMC_FUZZ_SEEDS) > 0 ? Number(process.env.BMC_FUZZ_SEEDS) : 6;
const SEEDS = Array.from({ length: SEED_COUNT }, (_, i) => 1000 + i * 7919);
const RUNS = 30;

/** Every violation the six properties find on `target` with `seed`, as "REQ: problem". */
async function violations(target: FuzzTarget, seed: number): Promise<string[]> {
  const { env, loginClient } = target;
  const properties: Array<FuzzProperty<any>> = [
    envelopeProperty(env),
    anonymousProperty(env),
    loginProperty(env, loginClient),
    serverErrorProperty(env),
    writeProperty(env, await writeTargets(env)),
    stabilityProperty(env),
  ];
  const found: string[] = [];
  for (const p of properties) {
    for (const r of await searchProperty(p, { numRuns: RUNS, runSeed: seed, timeLimitMs: 30_000 })) {
      if (r.failed) found.push(`${r.violation?.requirement ?? p.key}: ${r.violation?.problem ?? r.abort}`);
    }
  }
  return found;
}

const fails = (table: Readonly<Record<string, Expected>>) => Object.keys(table).filter((id) => table[id]!.verdict === 'FAIL');

describe.each<[string, SimulatorOptions, string[]]>([
  ['the clean simulator', {}, []],
  ['a simulator that decodes invalid UTF-8 leniently', { faults: ['lenient-utf8'] }, []],
  [
    'the phosphor-rest dialect',
    { dialect: 'phosphor-rest', eventLatencyMs: 50, uploadFailDelayMs: 100, requestMs: 0 },
    fails(PHOSPHOR_REST),
  ],
  ['the bmcweb dialect', { dialect: 'bmcweb', uploadFailDelayMs: 100 }, fails(BMCWEB)],
  ['the bmcweb@2023 dialect', { dialect: 'bmcweb@2023', uploadFailDelayMs: 100 }, fails(BMCWEB_2023)],
])('on %s', (_what, options, deviations) => {
  let target: FuzzTarget;
  beforeAll(async () => {
    target = await fuzzTarget(options);
  });
  afterAll(() => target.close());

  test(
    `${SEED_COUNT} seeds find no violation but of the true deviations`,
    async () => {
      const bySeed: Record<number, string[]> = {};
      const originals = await Promise.all(
        target.env.writable.map(async (w) => (await target.env.client.get(`${w.path}/attr/${w.name}`)).json),
      );
      for (const seed of SEEDS) {
        const found = (await violations(target, seed)).filter((v) => !deviations.includes(v.slice(0, v.indexOf(':'))));
        if (found.length > 0) bySeed[seed] = found;
        // Each seed starts where a run starts: the writable attributes as the target had them.
        for (const [i, w] of target.env.writable.entries()) {
          await target.env.client.put(`${w.path}/attr/${w.name}`, (originals[i] as { data?: unknown } | undefined)?.data);
        }
      }
      expect(bySeed).toEqual({});
    },
    hangAfter(180_000),
  );
});

test('a write whose body is not valid UTF-8, taken by a lenient server, is recorded and fails nothing', async () => {
  const target = await fuzzTarget({ faults: ['lenient-utf8'] });
  try {
    const targets = await writeTargets(target.env);
    const i = targets.findIndex((w) => w.attr.name === 'AssetTag');
    // {"data":"\x80"}: a lone continuation byte, which the lenient server stores as U+FFFD.
    const c = {
      target: i,
      contentType: 'application/json',
      body: { shape: 'data' as const, value: 'x', malform: { kind: 'bytes' as const, hex: '7b2264617461223a2280227d' } },
    };
    const judged: string[] = [];
    await writeProperty(target.env, targets).predicate(c, { violation: (requirement) => void judged.push(requirement) });
    expect(judged).toEqual([]);
    expect(target.env.acceptedMalformed).toHaveLength(1);
    expect(target.env.acceptedMalformed[0]).toMatch(/answered 200; value changed/);
  } finally {
    await target.close();
  }
});
