/** Which tool and which catalogue judged a run: a certificate names both. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REQUIREMENTS } from '../catalogue/requirements.js';
import { packageRoot } from '../client/package-root.js';

export interface ToolInfo {
  name: string;
  version: string;
  /** The catalogue has no release number of its own: its requirement count and a digest of its entries identify it. */
  catalogue: { requirements: number; digest: string };
}

export function toolInfo(): ToolInfo {
  const manifest = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { name: string; version: string };
  const entries = REQUIREMENTS.map((r) => [r.id, r.level, r.section, r.area, r.title].join('\t')).join('\n');
  return {
    name: manifest.name,
    version: manifest.version,
    catalogue: { requirements: REQUIREMENTS.length, digest: createHash('sha256').update(entries).digest('hex').slice(0, 12) },
  };
}

export function catalogueVersion(tool: ToolInfo): string {
  return `${tool.catalogue.requirements} requirements, digest ${tool.catalogue.digest}`;
}
