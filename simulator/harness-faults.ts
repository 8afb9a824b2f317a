/**
 * Harness faults: behaviour that breaks no statement the suites judge, but what a run must notice
 * about itself. They stay out of the FAULTS catalogue and the mutation self-test.
 */
export interface HarnessFaultInfo {
  name: string;
  description: string;
}

export const HARNESS_FAULTS = [
  {
    name: 'restore-skipped',
    description:
      'a write that would put an attribute back to the value it had at start answers 200 and changes nothing (a run cannot restore it)',
  },
] as const satisfies readonly HarnessFaultInfo[];

export const HARNESS_FAULT_NAMES: ReadonlySet<string> = new Set(HARNESS_FAULTS.map((f) => f.name));
