/**
 * A load run that sits beside the conformance run (load.json, load.html and its charts). The load
 * tool's format is its own and changes: this reads it defensively, taking the figures it can
 * recognise and ignoring the rest, and never imports from load/.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface LoadScenario {
  name: string;
  requests?: number;
  requestsPerSecond?: number;
  p50Ms?: number;
  p99Ms?: number;
}

export interface LoadRun {
  /** The figures file, relative to the run folder. */
  file: string;
  startedAt?: string;
  scenarios: LoadScenario[];
  /** Pages and images of the load run (load.html, charts), relative to the run folder. */
  charts: string[];
  /** Set when the file is there but could not be read as figures. */
  problem?: string;
}

/** Newest name first: load.json is the current one; load-results.json an older load tool's. */
const FIGURE_FILES = ['load.json', 'load-results.json'];
const CHART = /^load[\w.-]*\.(html|svg|png)$/i;

/** Host and port of a target URL, the user part and path aside: what makes two runs "the same target". */
function targetKey(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * The load run in `dir`; when `target` is given, one whose load.json names another target is
 * not merged: it comes back as a problem saying so, without figures.
 */
export async function readLoadRun(dir: string, target?: string): Promise<LoadRun | undefined> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const file = FIGURE_FILES.find((f) => names.includes(f));
  const charts = names.filter((n) => CHART.test(n)).sort();
  if (!file) return charts.length > 0 ? { file: charts[0]!, scenarios: [], charts, problem: 'no load.json beside the charts' } : undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(join(dir, file), 'utf8'));
  } catch {
    return { file, scenarios: [], charts, problem: `${file} is not valid JSON` };
  }
  const scenarios = scenarioList(doc)
    .map(scenarioOf)
    .filter((s): s is LoadScenario => s !== undefined);
  const startedAt = typeof field(doc, 'startedAt') === 'string' ? (field(doc, 'startedAt') as string) : undefined;
  const loadTarget = field(doc, 'target');
  if (target !== undefined && typeof loadTarget === 'string' && targetKey(loadTarget) !== targetKey(target)) {
    return {
      file,
      startedAt,
      scenarios: [],
      charts: [],
      problem: `${file} is of another target (${targetKey(loadTarget) ?? loadTarget}), not shown`,
    };
  }
  return { file, startedAt, scenarios, charts, ...(scenarios.length === 0 && { problem: `${file} names no scenario with figures` }) };
}

function scenarioList(doc: unknown): unknown[] {
  if (Array.isArray(doc)) return doc;
  for (const key of ['scenarios', 'results']) {
    const list = field(doc, key);
    if (Array.isArray(list)) return list;
  }
  return [];
}

function scenarioOf(entry: unknown): LoadScenario | undefined {
  const name = field(entry, 'scenario') ?? field(entry, 'name');
  if (typeof name !== 'string' || name === '') return undefined;
  const latency = field(entry, 'latencyMs') ?? field(entry, 'latency');
  return {
    name,
    requests: numberOf(field(entry, 'requests'), field(field(entry, 'requests'), 'total')),
    requestsPerSecond: numberOf(field(entry, 'requestsPerSecond'), field(entry, 'rps')),
    p50Ms: numberOf(field(latency, 'p50'), field(entry, 'p50Ms'), field(entry, 'p50')),
    p99Ms: numberOf(field(latency, 'p99'), field(entry, 'p99Ms'), field(entry, 'p99')),
  };
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

function numberOf(...candidates: unknown[]): number | undefined {
  return candidates.find((c): c is number => typeof c === 'number' && Number.isFinite(c));
}
