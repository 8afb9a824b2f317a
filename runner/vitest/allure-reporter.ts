/**
 * allure-vitest's reporter, writing its files without an fsync each. Its own writer syncs every
 * result and attachment to disk one by one on the main thread when the run ends (some 2,800 files
 * in a full run: 2 s on an idle machine, over 10 s beside other disk work); a report that is read
 * after the run needs no durability against a power cut. The files and their contents are the same.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import AllureVitestReporter from 'allure-vitest/reporter';
import type { Vitest } from 'vitest/node';

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

/**
 * Writes as allure's FileSystemWriter does (same names, same JSON), without fsync and temp-file
 * renames; the two files written once per run (environment, categories) still go through allure's.
 */
export class UnsyncedWriter implements ResultWriter {
  private made = false;

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

  private write(name: string, data: string | Buffer): void {
    writeFileSync(this.path(name), data);
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
  /** True once the results go through UnsyncedWriter (false: allure's own writer, slower but the same files). */
  unsynced = false;

  constructor(private readonly resultsDir: string) {
    super({ resultsDir });
  }

  override onInit(vitest: Vitest): void {
    super.onInit(vitest);
    const runtime = (this as unknown as WithRuntime).allureReporterRuntime;
    if (runtime?.writer && typeof runtime.writer.writeResult === 'function') {
      runtime.writer = new UnsyncedWriter(this.resultsDir, runtime.writer);
      this.unsynced = true;
    }
  }
}
