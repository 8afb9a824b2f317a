import type { Command } from 'commander';

/** The options every command that talks to a target shares (see targetOptions in main.ts). */
export interface TargetFlags {
  target?: string;
  user: string;
  password: string;
  namespace: string;
  insecure: boolean;
  timeout?: number;
}

/** --namespace as given: `given` unless commander filled in its default (BMC_NAMESPACE counts as given). */
export function namespaceFlag(flags: TargetFlags, cmd: Command | undefined): { value: string; given: boolean } {
  return { value: flags.namespace, given: cmd?.getOptionValueSource('namespace') !== 'default' };
}
