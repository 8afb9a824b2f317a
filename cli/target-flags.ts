import type { Command } from 'commander';
import type { TargetFlags } from '../runner/settings.js';

export type { TargetFlags };

/** --namespace as given: `given` unless commander filled in its default (BMC_NAMESPACE counts as given). */
export function namespaceFlag(flags: TargetFlags, cmd: Command | undefined): { value: string; given: boolean } {
  return { value: flags.namespace, given: cmd?.getOptionValueSource('namespace') !== 'default' };
}
