import { describe, expect, test } from 'vitest';
import { buildImage, corruptImage, imageWithoutManifest, parseManifest, readImage, versionId } from '../../client/image.js';

describe('image builder', () => {
  test('an image is a tar with MANIFEST (purpose, version) and a payload', async () => {
    const tar = await buildImage({ version: '2.15.0-test1', namespace: 'mgmt_project' });
    const files = await readImage(tar);
    expect([...files.keys()].sort()).toEqual(['MANIFEST', 'image-bmc']);
    const manifest = files.get('MANIFEST')?.toString('utf8');
    expect(manifest).toBe('purpose=xyz.mgmt_project.Software.Version.VersionPurpose.BMC\nversion=2.15.0-test1\n');
    expect(parseManifest(manifest ?? '')).toEqual({
      purpose: 'xyz.mgmt_project.Software.Version.VersionPurpose.BMC',
      version: '2.15.0-test1',
    });
  });

  test('extra files and a custom purpose; identical input gives identical bytes', async () => {
    const spec = {
      version: 'v1',
      purpose: 'xyz.openbmc_project.Software.Version.VersionPurpose.Host',
      extraFiles: { 'image-host': Buffer.from([1, 2, 3]), 'sub/dir.txt': 'x' },
    };
    const a = await buildImage(spec);
    const files = await readImage(a);
    expect([...files.keys()].sort()).toEqual(['MANIFEST', 'image-host', 'sub/dir.txt']);
    expect([...(files.get('image-host') ?? [])]).toEqual([1, 2, 3]);
    expect(files.get('MANIFEST')?.toString()).toContain('purpose=xyz.openbmc_project.Software.Version.VersionPurpose.Host\n');
    expect((await buildImage(spec)).equals(a)).toBe(true);
    await expect(buildImage({ version: 'x', extraFiles: { '../escape': 'x' } })).rejects.toThrow(/leaves the archive/);
  });

  test('failure variants: no MANIFEST, not a tar', async () => {
    const noManifest = await readImage(await imageWithoutManifest());
    expect([...noManifest.keys()]).toEqual(['image-bmc']);
    const corrupt = await readImage(corruptImage()).catch(() => new Map<string, Buffer>());
    expect(corrupt.size).toBe(0);
  });

  test('versionId is the first 8 hex digits of sha512(version)', () => {
    expect(versionId('2.15.0-test1')).toMatch(/^[0-9a-f]{8}$/);
    expect(versionId('abc')).toBe('ddaf35a1');
  });
});
