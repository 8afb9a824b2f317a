/** summary.pdf: summary.html printed by headless Chromium, for a lab that files paper. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHROMIUM_ARGS, findChromium } from './chromium.js';
import { SUMMARY_HTML } from './summary/html.js';

export const SUMMARY_PDF = 'summary.pdf';
const PRINT_COPY = 'summary-print.html';
const PRINT_TIMEOUT_MS = 120_000;

export type PdfOutcome = { written: string } | { skipped: string };

export async function printSummaryPdf(dir: string): Promise<PdfOutcome> {
  const chromium = findChromium();
  if (!chromium) return { skipped: 'summary.pdf was not written: there is no Chromium on the PATH (apt-get install chromium).' };
  const pdf = join(dir, SUMMARY_PDF);
  const profile = await mkdtemp(join(tmpdir(), 'bmc-chromium-'));
  try {
    // The page as printed: a copy beside Chromium's profile, so the run's folder gains no file.
    const copy = join(profile, PRINT_COPY);
    await writeFile(copy, printCopy(await readFile(join(dir, SUMMARY_HTML), 'utf8'), dir));
    const args = [
      ...CHROMIUM_ARGS,
      `--user-data-dir=${profile}`,
      '--no-pdf-header-footer',
      `--print-to-pdf=${pdf}`,
      pathToFileURL(copy).href,
    ];
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(chromium, args, { stdio: 'ignore' });
      const timer = setTimeout(() => child.kill('SIGKILL'), PRINT_TIMEOUT_MS);
      child.on('error', reject);
      child.on('close', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    if (code !== 0 || !existsSync(pdf)) return { skipped: `summary.pdf was not written: ${chromium} exited with ${code ?? 'a signal'}.` };
    return { written: pdf };
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}

/**
 * summary.html as it goes to paper: every <details> open (the print stylesheet opens them too, but
 * only where Chromium knows ::details-content), and links resolved against the run's folder. The
 * page escapes everything the target said, so each "<details" is one the page made.
 */
export function printCopy(page: string, dir: string): string {
  return page.replace(/<details(?=[\s>])/g, '<details open').replace(/<head>/, `<head><base href="${pathToFileURL(dir).href}/">`);
}
