import { afterEach, describe, expect, test } from 'vitest';
import { BmcClient } from '../../client/http.js';
import { onClientEvent, type ClientEvent } from '../../client/run-context.js';
import { TreeReadTally, treeReadsLine, wholeTreeRoute, type TreeRead } from '../../client/tree-reads.js';
import { envelope, sendJson, startHttps, type TestServer } from './servers.js';

describe('wholeTreeRoute', () => {
  test('the enumerate and list of a namespace root, of /xyz and of / are whole-tree reads', () => {
    for (const path of ['/xyz/mgmt_project/enumerate', '/xyz/enumerate', '/enumerate', '/xyz/openbmc_project/enumerate?x=1'])
      expect(wholeTreeRoute('GET', path)).toBe('enumerate');
    for (const path of ['/xyz/mgmt_project/list', '/xyz/list', '/list']) expect(wholeTreeRoute('get', path)).toBe('list');
  });

  test('an enumerate below the root is a subtree read; a list below it, another route or method is none', () => {
    expect(wholeTreeRoute('GET', '/xyz/mgmt_project/software/enumerate')).toBe('subtree');
    expect(wholeTreeRoute('GET', '/xyz/mgmt_project/software/list')).toBeUndefined();
    expect(wholeTreeRoute('GET', '/xyz/mgmt_project/')).toBeUndefined();
    expect(wholeTreeRoute('GET', '/xyz/mgmt_project/attr/enumerate')).toBe('subtree');
    expect(wholeTreeRoute('PUT', '/xyz/mgmt_project/enumerate')).toBeUndefined();
    expect(wholeTreeRoute('POST', '/xyz/mgmt_project/list')).toBeUndefined();
  });
});

describe('TreeReadTally', () => {
  test('counts whole-tree reads and their time per area, subtree enumerates apart, the costliest tests first', () => {
    const tally = new TreeReadTally();
    const reads: TreeRead[] = [
      { route: 'enumerate', ms: 3000, area: 'writes', test: 'EP-8' },
      { route: 'enumerate', ms: 3000, area: 'writes', test: 'EP-8' },
      { route: 'list', ms: 100, area: 'listings', test: 'EP-6' },
      { route: 'subtree', ms: 500, area: 'listings', test: 'EP-7' },
      { route: 'enumerate', ms: 2000 },
    ];
    for (const r of reads) tally.add(r);
    const t = tally.summary();
    expect(t).toMatchObject({ count: 4, seconds: 8.1, enumerate: 3, list: 1, subtree: { count: 1, seconds: 0.5 } });
    expect(t.areas.map((a) => [a.area, a.count, a.seconds, a.subtree])).toEqual([
      ['writes', 2, 6, 0],
      ['run', 1, 2, 0],
      ['listings', 1, 0.1, 1],
    ]);
    expect(t.tests[0]).toMatchObject({ test: 'EP-8', area: 'writes', count: 2, seconds: 6 });
    expect(t.tests.find((x) => x.area === 'run')?.test).toBe('run (hooks)');
    expect(treeReadsLine(t)).toBe(
      'whole-tree reads: 4 (3 enumerate, 1 list) in 8.1 s; writes 2 (6 s), run 1 (2 s), listings 1 (0.1 s); subtree enumerates: 1 in 0.5 s',
    );
  });

  test('a run that read nothing says so', () => {
    expect(treeReadsLine(new TreeReadTally().summary())).toBe(
      'whole-tree reads: 0 (0 enumerate, 0 list) in 0 s; subtree enumerates: 0 in 0 s',
    );
  });
});

describe('the client tells the run of each whole-tree read', () => {
  let server: TestServer | undefined;
  let client: BmcClient | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.close();
  });

  test('answered or refused, with its route; other requests are not told', async () => {
    server = await startHttps((req, res) => {
      if (req.url.endsWith('/list')) return sendJson(res, 500, envelope(500, {}));
      sendJson(res, 200, envelope(200, {}));
    });
    client = new BmcClient({ baseUrl: server.url, user: 'root', password: 'pw', insecure: true });
    const told: ClientEvent[] = [];
    const stop = onClientEvent((e) => void (e.type === 'tree-read' && told.push(e)));
    try {
      await client.get('/xyz/mgmt_project/enumerate', { auth: false });
      await client.get('/xyz/mgmt_project/list', { auth: false, max503Retries: 0 });
      await client.get('/xyz/mgmt_project/time/enumerate', { auth: false });
      await client.get('/xyz/mgmt_project/time', { auth: false });
      await client.request('PUT', '/xyz/mgmt_project/enumerate', { auth: false, json: { data: 1 } });
    } finally {
      stop();
    }
    expect(told.map((e) => (e.type === 'tree-read' ? e.read.route : ''))).toEqual(['enumerate', 'list', 'subtree']);
  });
});
