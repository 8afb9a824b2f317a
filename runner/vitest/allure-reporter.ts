/**
 * allure-vitest's reporter, writing its files without an fsync each. Its own writer syncs every
 * result and attachment to disk one by one on the main thread when the run ends (some 2,800 files
 * in a full run: 2 s on an idle machine, over 10 s beside other disk work); a report that is read
 * after the run needs no durability against a power cut. The files and their contents are the same.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import AllureVitestReporter from 'allure-vitest/reporter';
import type { TestModule, Vitest } from 'vitest/node';

/** The writer methods allure's runtime calls per test (allure-js-commons' `Writer`). */
interface ResultWriter {
  writeResult(result: { uuid: string }): void;
  writeGroup(result: { uuid: string }): void;
  writeAttachment(distFileName: string, content: Buffer): void;
  writeAttachmentFromPath(distFileName: string, from: string): void;
  writeGlobals(distFileName: string, info: unknown): void;
  writeEnvironmentInfo(info: unknown): void;
  writeCategoriesDefinitions(categories: unknown): void;
}

/** Files being written at once: the threadpool's width, well below any limit on open files. */
const WRITES_AT_ONCE = 8;

/**
 * Writes as allure's FileSystemWriter does (same names, same JSON), without fsync and temp-file
 * renames, and in the background (the main thread builds the next result meanwhile): `flushed()`
 * is when every file is there. The two files written once per run (environment, categories) still
 * go through allure's.
 */
export class UnsyncedWriter implements ResultWriter {
  private made = false;
  private readonly queue: Array<() => Promise<void>> = [];
  private running = 0;
  /** The writes not yet done; a failed one fails flushed(). */
  private pending: Promise<void>[] = [];
  /** The last write of each file: a file written again is written after it, never beside it. */
  private readonly last = new Map<string, Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly allures: ResultWriter,
  ) {}

  writeResult(result: { uuid: string }): void {
    this.write(`${result.uuid}-result.json`, JSON.stringify(result));
  }

  writeGroup(result: { uuid: string }): void {
    this.write(`${result.uuid}-container.json`, JSON.stringify(result));
  }

  writeAttachment(distFileName: string, content: Buffer): void {
    this.write(distFileName, content);
  }

  writeAttachmentFromPath(distFileName: string, from: string): void {
    copyFileSync(from, this.path(distFileName));
  }

  writeGlobals(distFileName: string, info: unknown): void {
    this.write(distFileName, JSON.stringify(info));
  }

  writeEnvironmentInfo(info: unknown): void {
    this.allures.writeEnvironmentInfo(info);
  }

  writeCategoriesDefinitions(categories: unknown): void {
    this.allures.writeCategoriesDefinitions(categories);
  }

  /** Every file written so far is on disk (in the page cache). */
  async flushed(): Promise<void> {
    while (this.pending.length > 0) {
      const now = this.pending;
      this.pending = [];
      await Promise.all(now);
    }
    this.last.clear();
  }

  private write(name: string, data: string | Buffer): void {
    const path = this.path(name);
    const before = this.last.get(path);
    const done = (before ?? Promise.resolve()).then(() => this.slot(() => writeFile(path, data)));
    this.last.set(path, done);
    this.pending.push(done);
  }

  private slot(task: () => Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push(() => task().then(resolve, reject));
      this.next();
    });
  }

  private next(): void {
    while (this.running < WRITES_AT_ONCE && this.queue.length > 0) {
      const task = this.queue.shift()!;
      this.running += 1;
      void task().finally(() => {
        this.running -= 1;
        this.next();
      });
    }
  }

  private path(name: string): string {
    if (!this.made) mkdirSync(this.dir, { recursive: true });
    this.made = true;
    return join(this.dir, name);
  }
}

/** The runtime's writer as allure-vitest 3 keeps it (a private field: checked, never assumed). */
interface WithRuntime {
  allureReporterRuntime?: { writer?: ResultWriter };
}

export class AllureReporter extends AllureVitestReporter {
  /** Set once the results go through it (absent: allure's own writer, slower but the same files). */
  private writer?: UnsyncedWriter;

  get unsynced(): boolean {
    return this.writer !== undefined;
  }

  constructor(private readonly resultsDir: string) {
    super({ resultsDir });
  }

  override onInit(vitest: Vitest): void {
    super.onInit(vitest);
    const runtime = (this as unknown as WithRuntime).allureReporterRuntime;
    if (runtime?.writer && typeof runtime.writer.writeResult === 'function') {
      this.writer = new UnsyncedWriter(this.resultsDir, runtime.writer);
      runtime.writer = this.writer;
    }
  }

  /** Files whose results are written already. */
  private readonly written = new Set<TestModule>();

  /**
   * allure-vitest builds and writes every result when the run ends: some 2,800 files after the last
   * test, over a second of a full run. Each file's results are final when it ends, so they are built
   * then, while the next file runs in the suites' thread, and written in the background.
   */
  onTestModuleEnd(testModule: TestModule): void {
    // The runner's task behind the module, as allure-vitest reads it: an untyped field, checked.
    const { task } = testModule as unknown as { task?: Parameters<AllureVitestReporter['handleTask']>[0] };
    if (!task) return;
    this.handleTask(task);
    this.written.add(testModule);
  }

  /** vitest waits for it: the results are all on disk before the run's reports read them. */
  // vitest's Reporter hooks may return a promise (Awaitable<void>); allure-vitest declares void.
  // eslint-disable-next-line @typescript-eslint/no-misused-promises
  override async onTestRunEnd(tests: Parameters<AllureVitestReporter['onTestRunEnd']>[0]): Promise<void> {
    // The files not ended (an interrupted run) are written here, and the run's global messages with them.
    super.onTestRunEnd(tests.filter((t) => !this.written.has(t)));
    this.written.clear();
    await this.writer?.flushed();
  }
}
