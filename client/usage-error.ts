/** A problem with how the tool was called or with the environment: one sentence, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
