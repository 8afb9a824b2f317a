/** The Allure HTML report of a run, rendered by the Allure 2 command line (it needs Java). */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { UsageError } from '../../client/usage-error.js';
import { ALLURE_RESULTS } from './results.js';
import { ALLURE_REPORT } from '../baseline.js';
import { CATALOGUE_HTML, cataloguePage } from '../catalogue-html.js';
import { toolInfo } from '../tool-info.js';

/** Renders DIR/allure-results into DIR/allure-report, with the catalogue its tests link to, and returns its index page. */
export async function renderAllureReport(dir: string): Promise<string> {
  const results = join(dir, ALLURE_RESULTS);
  const out = join(dir, ALLURE_REPORT);
  if (!existsSync(results)) throw new UsageError(`There are no Allure results at ${results}.`);
  const require = createRequire(import.meta.url);
  const bin = join(dirname(require.resolve('allure-commandline/package.json')), 'dist', 'bin', 'allure');
  const code = await new Promise<number>((resolveCode, reject) => {
    // A lab's report must not call out to an analytics service (and a closed lab network refuses it).
    // The JIT's first tier alone: a report is one short job, and full optimisation cost a fifth of it.
    const javaOpts = [process.env.JAVA_OPTS, '-XX:TieredStopAtLevel=1'].filter(Boolean).join(' ');
    const env = { ...process.env, ALLURE_NO_ANALYTICS: 'true', JAVA_OPTS: javaOpts };
    const child = spawn(bin, ['generate', results, '-o', out, '--clean'], { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (c) => {
      if (c !== 0 && /JAVA_HOME|java: not found|No such file/i.test(stderr))
        reject(new UsageError('The Allure HTML report needs Java 17 on the PATH; pass --no-html to skip it.'));
      else resolveCode(c ?? 1);
    });
  });
  if (code !== 0) throw new UsageError(`allure generate failed with exit code ${code}.`);
  await writeFile(join(out, CATALOGUE_HTML), cataloguePage(toolInfo()));
  return join(out, 'index.html');
}
