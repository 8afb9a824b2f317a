/** Runs suite files in catalogue order: reads first, then writes, uploads, events, and fuzzing last. */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { AREAS, areaOfSuiteFile } from '../../catalogue/requirements.js';

function areaIndex(spec: TestSpecification): number {
  const area = areaOfSuiteFile(spec.moduleId);
  return area ? AREAS.indexOf(area) : AREAS.length;
}

export class AreaSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => areaIndex(a) - areaIndex(b));
  }
}
