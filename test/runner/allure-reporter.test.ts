/**
 * The run's allure reporter writes the files allure's own writer writes, byte for byte, without
 * syncing each to disk; and it really does take over the writer (a new allure-vitest that moves its
 * runtime shows here, not as seconds lost at the end of every run).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import type { TestModule, Vitest } from 'vitest/node';
import { FileSystemWriter } from 'allure-js-commons/sdk/reporter';
import { AllureReporter, UnsyncedWriter } from '../../runner/vitest/allure-reporter.js';

const base = mkdtempSync(join(tmpdir(), 'allure-writer-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function files(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'latin1')]));
}

describe('UnsyncedWriter', () => {
  test('writes the same files with the same contents as allure FileSystemWriter', async () => {
    const source = join(base, 'source.txt');
    writeFileSync(source, 'attachment from a path ü');
    const theirs = join(base, 'theirs');
    const ours = join(base, 'ours');
    const calls = (w: UnsyncedWriter | FileSystemWriter): void => {
      const result = { uuid: 'r-1', name: '[EP-1] a test ü', status: 'passed', labels: [{ name: 'requirement', value: 'EP-1' }] };
      w.writeResult(result as never);
      w.writeGroup({ uuid: 'g-1', children: ['r-1'] } as never);
      w.writeAttachment('a-1-attachment.json', Buffer.from('{"evidence": "\u00ff\u0000"}'));
      w.writeAttachmentFromPath('a-2-attachment.txt', source);
      w.writeGlobals('x-globals.json', { errors: [], attachments: [] } as never);
      w.writeEnvironmentInfo({ node: '20' });
      w.writeCategoriesDefinitions([{ name: 'Broken', matchedStatuses: ['broken'] }] as never);
    };
    calls(new FileSystemWriter({ resultsDir: theirs }));
    const writer = new UnsyncedWriter(ours, new FileSystemWriter({ resultsDir: ours }));
    calls(writer);
    await writer.flushed();
    const expected = files(theirs);
    expect(Object.keys(expected)).toHaveLength(7);
    expect(files(ours)).toEqual(expected);
  });

  test('writes many files at once, a file written twice ends with its last content', async () => {
    const dir = join(base, 'many');
    const writer = new UnsyncedWriter(dir, new FileSystemWriter({ resultsDir: dir }));
    for (let i = 0; i < 300; i++) writer.writeAttachment(`${i}-attachment.txt`, Buffer.from(String(i).repeat(1000)));
    for (let i = 0; i < 20; i++) writer.writeResult({ uuid: 'same', n: i } as never);
    await writer.flushed();
    const written = files(dir);
    expect(Object.keys(written)).toHaveLength(301);
    expect(written['299-attachment.txt']).toBe('299'.repeat(1000));
    expect(JSON.parse(written['same-result.json']!)).toEqual({ uuid: 'same', n: 19 });
  });
});

describe('AllureReporter', () => {
  test("replaces the runtime's writer once vitest initialises it", () => {
    const reporter = new AllureReporter(join(base, 'run'));
    expect(reporter.unsynced).toBe(false);
    reporter.onInit({ projects: [] } as unknown as Vitest);
    expect(reporter.unsynced).toBe(true);
  });

  test("builds a file's results when the file ends, not again at the run's end; a file that did not end, at the run's end", async () => {
    const reporter = new AllureReporter(join(base, 'by-file'));
    reporter.onInit({ projects: [] } as unknown as Vitest);
    const handled: string[] = [];
    vi.spyOn(reporter, 'handleTask').mockImplementation((task) => void handled.push(task.name));
    const ended = { task: { name: 'ended.suite.js' } } as unknown as TestModule;
    const cut = { task: { name: 'cut.suite.js' } } as unknown as TestModule;
    reporter.onTestModuleEnd(ended);
    expect(handled).toEqual(['ended.suite.js']);
    await reporter.onTestRunEnd([ended, cut]);
    expect(handled).toEqual(['ended.suite.js', 'cut.suite.js']);
  });
});
