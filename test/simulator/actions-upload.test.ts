import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTftpServer, UPLOAD_FAILED, versionId, type TftpServerHandle } from '../../simulator/index.js';
import { buildImageTarball, buildTar } from '../../simulator/image-archive.js';
import { I, rawHttps, ROOT, startWithSession, subscribe, type Session } from './helpers.js';
import { hangAfter } from '../support/hang.js';

let s: Session;
let tftp: TftpServerHandle;
let tftpRoot: string;

beforeAll(async () => {
  s = await startWithSession();
  tftpRoot = await mkdtemp(join(tmpdir(), 'sim-test-tftp-'));
  await writeFile(join(tftpRoot, 'good.tar'), buildImageTarball({ version: 'tftp-image-1' }));
  await writeFile(join(tftpRoot, 'junk.tar'), Buffer.alloc(3000, 7));
  tftp = await startTftpServer({ root: tftpRoot });
});
afterAll(async () => {
  await Promise.all([s.sim.close(), tftp.close()]);
  await rm(tftpRoot, { recursive: true, force: true });
});

const octet = 'application/octet-stream';
const upload = (body: Buffer, name?: string) =>
  s.call(name === undefined ? 'POST' : 'PUT', name === undefined ? '/upload/image' : `/upload/image/${name}`, {
    raw: body,
    contentType: octet,
  });

describe('upload', () => {
  it('POST registers a version, answers its id and emits InterfacesAdded', async () => {
    const sub = await subscribe(s.sim.url, s.cookie, { interfaces: [`${I}.Software.Version`] });
    const id = versionId('upload-post-1');
    const r = await upload(buildImageTarball({ version: 'upload-post-1' }));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: id, message: '200 OK', status: 'ok' });
    const path = `${ROOT}/software/${id}`;
    const obj = (await s.get(path)).body.data;
    expect(obj).toMatchObject({
      Version: 'upload-post-1',
      Purpose: `${I}.Software.Version.VersionPurpose.BMC`,
      Activation: `${I}.Software.Activation.Activations.Ready`,
    });
    expect((await s.get(`${ROOT}/software/`)).body.data).toContain(path);
    const [evt] = await sub.waitFor(1);
    expect(evt.event).toBe('InterfacesAdded');
    expect(evt.path).toBe(path);
    expect(evt.interfaces[`${I}.Software.Version`]).toEqual({
      Version: 'upload-post-1',
      Purpose: `${I}.Software.Version.VersionPurpose.BMC`,
    });
    expect(evt.interfaces[`${I}.Software.Activation`].Activation).toBe(`${I}.Software.Activation.Activations.Ready`);
    expect(evt.interfaces).toHaveProperty([`${I}.Object.Delete`]);
    sub.close();
  });

  it('PUT stores under the remote name', async () => {
    const r = await upload(
      buildImageTarball({ version: 'upload-put-1', purpose: `${I}.Software.Version.VersionPurpose.Host` }),
      'my-image.tar',
    );
    expect(r.status).toBe(200);
    const obj = (await s.get(`${ROOT}/software/${r.body.data}`)).body.data;
    expect(obj.Path).toBe('/tmp/images/my-image.tar');
    expect(obj.Purpose).toBe(`${I}.Software.Version.VersionPurpose.Host`);
  });

  it.each(['..', 'a..b', '.%2e', 'x%2Fy', '%2e%2e', 'sp%20ace', 'a\\b', ''])(
    'PUT with the unsafe remote name %j answers 400',
    async (name) => {
      const image = buildImageTarball({ version: `bad-name-${name}` });
      const head =
        `PUT /upload/image/${name} HTTP/1.1\r\nHost: x\r\nCookie: ${s.cookie}\r\n` +
        `Content-Type: ${octet}\r\nContent-Length: ${image.length}\r\nConnection: close\r\n\r\n`;
      const r = await rawHttps(s.sim.port, Buffer.concat([Buffer.from(head), image]));
      expect(r.status).toBe(400);
      expect(r.body.status).toBe('error');
    },
  );

  it('a duplicate version, a non-tar body and a tar without MANIFEST answer 400 with the spec text', async () => {
    expect((await upload(buildImageTarball({ version: 'dup-1' }))).status).toBe(200);
    const bad = [
      buildImageTarball({ version: 'dup-1' }),
      Buffer.from('this is not a tar archive'.repeat(50)),
      buildTar({ 'image-bmc': 'payload' }),
      buildTar({ MANIFEST: 'version=no-purpose\n' }),
      buildTar({ MANIFEST: `purpose=${I}.Software.Version.VersionPurpose.BMC\n` }),
      buildTar({ MANIFEST: 'version=v\npurpose=xyz.other.Software.Version.VersionPurpose.BMC\n' }),
      buildTar({ 'sub/MANIFEST': `version=nested\npurpose=${I}.Software.Version.VersionPurpose.BMC\n` }),
      buildImageTarball({ version: 'truncated' }).subarray(0, 700),
    ];
    for (const body of bad) {
      const r = await upload(body);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ data: { description: UPLOAD_FAILED }, message: '400 Bad Request', status: 'error' });
    }
  });

  it('concurrent uploads of one version: exactly one succeeds', async () => {
    const image = buildImageTarball({ version: 'concurrent-1' });
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => upload(image, i % 2 ? `c${i}.tar` : undefined)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 400)).toHaveLength(7);
  });

  it('checks content type and size', async () => {
    const image = buildImageTarball({ version: 'ct-1' });
    expect((await s.call('POST', '/upload/image', { raw: image, contentType: 'application/x-tar' })).status).toBe(415);
    expect((await s.call('POST', '/upload/image', { raw: image })).status).toBe(415);
    expect((await s.call('POST', '/upload/image', { raw: Buffer.alloc(0), contentType: octet })).status).toBe(400);
    const big = await upload(Buffer.alloc(32 * 1024 * 1024 + 1));
    expect(big.status).toBe(413);
    expect(big.body.message).toBe('413 Payload Too Large');
    expect((await s.get('/')).status).toBe(200);
  });

  it('wrong methods on upload routes', async () => {
    expect((await s.call('GET', '/upload/image')).status).toBe(405);
    expect((await s.call('PUT', '/upload/image', { raw: Buffer.alloc(10), contentType: octet })).status).toBe(405);
    expect((await s.call('POST', '/upload/image/x.tar', { raw: Buffer.alloc(10), contentType: octet })).status).toBe(403);
  });
});

describe('actions', () => {
  it('DownloadViaTFTP fetches and registers an image', async () => {
    const id = versionId('tftp-image-1');
    const r = await s.post(`${ROOT}/software/action/DownloadViaTFTP`, ['good.tar', `${tftp.host}:${tftp.port}`]);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ok');
    const obj = (await s.get(`${ROOT}/software/${id}`)).body.data;
    expect(obj.Version).toBe('tftp-image-1');
    expect(obj.Path).toBe('/tmp/images/good.tar');
    // second time: the version exists
    const again = await s.post(`${ROOT}/software/action/DownloadViaTFTP`, ['good.tar', `${tftp.host}:${tftp.port}`]);
    expect(again.status).toBe(400);
    expect(again.body.data.description).toBe(UPLOAD_FAILED);
  });

  it('DownloadViaTFTP errors are 400 envelopes naming the cause', async () => {
    const server = `${tftp.host}:${tftp.port}`;
    const missing = await s.post(`${ROOT}/software/action/DownloadViaTFTP`, ['missing.tar', server]);
    expect(missing.status).toBe(400);
    expect(missing.body.data.description).toMatch(/TFTP/);
    const junk = await s.post(`${ROOT}/software/action/DownloadViaTFTP`, ['junk.tar', server]);
    expect(junk.status).toBe(400);
    expect(junk.body.data.description).toBe(UPLOAD_FAILED);
    for (const args of [[], ['good.tar'], ['good.tar', server, 'x'], [1, server], ['good.tar', 69], 'good.tar']) {
      const r = await s.post(`${ROOT}/software/action/DownloadViaTFTP`, args);
      expect(r.status, JSON.stringify(args)).toBe(400);
    }
    const offsite = await s.post(`${ROOT}/software/action/DownloadViaTFTP`, ['good.tar', '192.0.2.1']);
    expect(offsite.status).toBe(400);
    const badPort = await s.post(`${ROOT}/software/action/DownloadViaTFTP`, ['good.tar', '127.0.0.1:99999']);
    expect(badPort.status).toBe(400);
  });

  it(
    'DownloadViaTFTP from an unreachable server fails within a few seconds',
    async () => {
      const started = Date.now();
      const r = await s.post(`${ROOT}/software/action/DownloadViaTFTP`, ['good.tar', '127.0.0.1:9']);
      expect(r.status).toBe(400);
      expect(r.body.data.description).toMatch(/TFTP/);
      expect(Date.now() - started).toBeLessThan(6000);
    },
    hangAfter(10_000),
  );

  it('Reset restores the initial tree', async () => {
    const sys = `${ROOT}/inventory/system`;
    const before = (await s.get(sys)).body.data;
    await s.put(`${sys}/attr/AssetTag`, 'CHANGED');
    await s.del(`${ROOT}/logging/entry/2`);
    const up = await upload(buildImageTarball({ version: 'before-reset' }));
    expect(up.status).toBe(200);
    expect((await s.post(`${ROOT}/software/action/Reset`, [])).status).toBe(200);
    expect((await s.get(sys)).body.data).toEqual(before);
    expect((await s.get(`${ROOT}/logging/entry/2`)).status).toBe(200);
    expect((await s.get(`${ROOT}/software/${up.body.data}`)).status).toBe(404);
    expect((await s.post(`${ROOT}/software/action/Reset`, ['x'])).status).toBe(400);
  });

  it('rule 4: POST that would create answers 403 and creates nothing', async () => {
    const cases = [
      `${ROOT}/inventory/system`,
      `${ROOT}/inventory/newthing`,
      `${ROOT}/logging/entry/99`,
      `${ROOT}/logging/entry/`,
      `${ROOT}/list`,
      `${ROOT}/inventory/system/attr/AssetTag`,
      `${ROOT}/software/action/NoSuchMethod`,
      `${ROOT}/nope/action/Reset`,
      '/subscribe',
      '/elsewhere',
    ];
    for (const p of cases) {
      const r = await s.post(p, {});
      expect(r.status, p).toBe(403);
      expect(r.body.status).toBe('error');
    }
    expect((await s.get(`${ROOT}/inventory/newthing`)).status).toBe(404);
    expect((await s.get(`${ROOT}/logging/entry/99`)).status).toBe(404);
  });

  it('action methods other than POST answer 405', async () => {
    expect((await s.get(`${ROOT}/software/action/Reset`)).status).toBe(405);
  });
});

describe('delete', () => {
  it('removes an instance implementing Object.Delete', async () => {
    const path = `${ROOT}/logging/entry/3`;
    const r = await s.del(path);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ok');
    expect((await s.get(path)).status).toBe(404);
    expect((await s.get(`${ROOT}/logging/entry/`)).body.data).not.toContain(path);
    expect((await s.get(`${ROOT}/logging/list`)).body.data).not.toContain(path);
    expect(Object.keys((await s.get(`${ROOT}/logging/enumerate`)).body.data)).not.toContain(path);
    expect((await s.del(path)).status).toBe(404);
  });

  it('Delete is also callable as an action', async () => {
    const path = `${ROOT}/logging/entry/4`;
    expect((await s.post(`${path}/action/Delete`, [])).status).toBe(200);
    expect((await s.get(path)).status).toBe(404);
  });

  it('uploaded versions are deletable', async () => {
    const r = await upload(buildImageTarball({ version: 'to-delete' }));
    expect((await s.del(`${ROOT}/software/${r.body.data}`)).status).toBe(200);
    // and can be uploaded again afterwards
    expect((await upload(buildImageTarball({ version: 'to-delete' }))).status).toBe(200);
  });

  it('rule 5: objects without Object.Delete answer 403 and stay', async () => {
    for (const p of [`${ROOT}/inventory/system`, `${ROOT}/software`, `${ROOT}/sensors`, `${ROOT}/logging/entry`]) {
      const r = await s.del(p);
      expect(r.status, p).toBe(403);
      expect((await s.get(p)).status).toBe(200);
    }
    expect((await s.del(`${ROOT}/nope`)).status).toBe(404);
  });
});
