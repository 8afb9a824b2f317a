/** The options every command that talks to a target shares (see targetOptions in main.ts). */
export interface TargetFlags {
  target?: string;
  user: string;
  password: string;
  namespace: string;
  insecure: boolean;
  timeout?: number;
}
