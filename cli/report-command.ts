/** `report`: Allure HTML from a run's results, and the verdicts that changed since a baseline. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { verdictChanges } from '../runner/changes.js';
import type { Results } from '../runner/results.js';
import { formatSummary } from '../runner/summary.js';
import { UsageError } from '../runner/usage-error.js';

export interface ReportFlags {
  in: string;
  baseline?: string;
  html: boolean;
}

export async function reportCommand(flags: ReportFlags): Promise<void> {
  const dir = resolve(flags.in);
  const results = await readResults(join(dir, 'results.json'));
  for (const line of formatSummary(results, [])) process.stdout.write(`${line}\n`);
  let regressions = 0;
  if (flags.baseline) {
    const changes = verdictChanges(await readResults(resolve(flags.baseline)), results);
    regressions = changes.filter((c) => c.kind === 'regression').length;
    process.stdout.write(changes.length === 0 ? 'no verdict changed since the baseline\n' : 'changed since the baseline:\n');
    for (const c of changes) process.stdout.write(`  ${c.id.padEnd(8)} ${c.from} -> ${c.to}${c.kind === 'change' ? '' : `  (${c.kind})`}\n`);
    await writeFile(join(dir, 'changes.json'), `${JSON.stringify(changes, null, 2)}\n`);
  }
  if (flags.html) await renderHtml(dir);
  process.exitCode = regressions > 0 ? 1 : 0;
}

export async function renderHtml(dir: string): Promise<void> {
  const out = join(dir, 'allure-report');
  await allureGenerate(join(dir, 'allure-results'), out);
  process.stdout.write(`html: ${join(out, 'index.html')}\n`);
}

async function readResults(file: string): Promise<Results> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UsageError(`There is no results file at ${file}; run "bmc-conformance run" first.`);
  }
  try {
    return JSON.parse(text) as Results;
  } catch {
    throw new UsageError(`${file} is not a results.json file.`);
  }
}

/** allure-commandline ships the Allure 2 CLI; it needs Java on the PATH. */
async function allureGenerate(results: string, out: string): Promise<void> {
  if (!existsSync(results)) throw new UsageError(`There are no Allure results at ${results}.`);
  const require = createRequire(import.meta.url);
  const bin = join(dirname(require.resolve('allure-commandline/package.json')), 'dist', 'bin', 'allure');
  const code = await new Promise<number>((resolveCode, reject) => {
    const child = spawn(bin, ['generate', results, '-o', out, '--clean'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (c) => {
      if (c !== 0 && /JAVA_HOME|java: not found|No such file/i.test(stderr)) reject(new UsageError('The Allure HTML report needs Java 17 on the PATH; pass --no-html to skip it.'));
      else resolveCode(c ?? 1);
    });
  });
  if (code !== 0) throw new UsageError(`allure generate failed with exit code ${code}.`);
}
