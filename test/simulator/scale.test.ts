import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startWithSession, type Session } from './helpers.js';

let s: Session;

beforeAll(async () => {
  s = await startWithSession({ objects: 10_000, entries: 50 });
});
afterAll(() => s.sim.close());

describe('10,000 generated objects', () => {
  // How fast is npm run bench's question (enumerate latency with 10,000 objects), not a test's.
  it('enumerate of the whole namespace is complete', async () => {
    const r = await s.get(`${ROOT}/enumerate`);
    expect(r.status).toBe(200);
    const paths = Object.keys(r.body.data);
    expect(paths.filter((p) => p.startsWith(`${ROOT}/inventory/generated/item`))).toHaveLength(10_000);
    expect(r.body.data[`${ROOT}/inventory/generated/item9999`]).toEqual({
      Present: 1,
      PrettyName: 'Item 9999',
      SerialNumber: 'GEN00009999',
      Index: 9999,
    });
  });

  it('list and children listings are complete', async () => {
    const list: string[] = (await s.get(`${ROOT}/list`)).body.data;
    expect(list.length).toBeGreaterThan(10_050);
    const children: string[] = (await s.get(`${ROOT}/inventory/generated/`)).body.data;
    expect(children).toHaveLength(10_000);
    expect(new Set(children).size).toBe(10_000);
  });

  it('deleting and uploading keep the index right', async () => {
    expect((await s.del(`${ROOT}/logging/entry/50`)).status).toBe(200);
    const list: string[] = (await s.get(`${ROOT}/logging/list`)).body.data;
    expect(list).not.toContain(`${ROOT}/logging/entry/50`);
    expect(list).toContain(`${ROOT}/logging/entry/49`);
  });

  it('Reset rebuilds the large tree', async () => {
    expect((await s.post(`${ROOT}/software/action/Reset`, [])).status).toBe(200);
    expect((await s.get(`${ROOT}/inventory/generated/`)).body.data).toHaveLength(10_000);
    expect((await s.get(`${ROOT}/logging/entry/50`)).status).toBe(200);
  });
});
