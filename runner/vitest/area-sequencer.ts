/** Runs suite files in catalogue order: reads first, then writes, uploads, events, and fuzzing last. */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { AREAS } from '../../catalogue/requirements.js';

function areaIndex(spec: TestSpecification): number {
  const m = /([a-z-]+)\.suite\.[jt]s$/.exec(spec.moduleId);
  const i = m ? (AREAS as readonly string[]).indexOf(m[1]!) : -1;
  return i === -1 ? AREAS.length : i;
}

export class AreaSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => areaIndex(a) - areaIndex(b));
  }
}
