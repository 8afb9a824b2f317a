/**
 * Writes a fleet folder's reports (fleet.json, summary.html, summary.md, junit.xml), each through
 * the redaction every report file goes through: no password of the fleet may land in any of them.
 */
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { redactText } from '../../client/evidence.js';
import { fleetPage } from './html.js';
import { fleetJunit } from './junit.js';
import { FLEET_FILE, type FleetMatrix } from './matrix.js';
import { fleetMarkdown } from './md.js';
import { JUNIT_FILE } from '../junit-xml.js';
import { SUMMARY_HTML } from '../summary/html.js';
import { SUMMARY_MD } from '../summary/md.js';

export async function writeFleetReport(dir: string, matrix: FleetMatrix, secrets: readonly string[]): Promise<void> {
  const redact = (text: string): string =>
    redactText(
      text,
      secrets.filter((s) => s !== ''),
    );
  await mkdir(dir, { recursive: true });
  const md = fleetMarkdown(matrix);
  const files: Array<[string, string]> = [
    [FLEET_FILE, `${JSON.stringify(matrix, null, 2)}\n`],
    [SUMMARY_HTML, fleetPage(matrix)],
    [SUMMARY_MD, md],
    [JUNIT_FILE, fleetJunit(matrix)],
  ];
  for (const [name, text] of files) await writeFile(join(dir, name), redact(text));
  // One summary for the job page: the fleet's targets do not append their own (see fleet-command).
  const stepSummary = process.env.GITHUB_STEP_SUMMARY;
  if (stepSummary) await appendFile(stepSummary, redact(md));
}
