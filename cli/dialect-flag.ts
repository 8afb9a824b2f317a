/** The sentence for a --dialect that names no dialect (run and simulate); no simulator module loads for it. */
import { DIALECTS } from '../simulator/dialects/dialect.js';

export function dialectError(name: string): string {
  return `Unknown dialect ${name}; the dialects are ${DIALECTS.slice(0, -1).join(', ')} and ${DIALECTS[DIALECTS.length - 1]} (bmcweb is bmcweb@current).`;
}
