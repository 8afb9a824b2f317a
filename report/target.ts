/** The target as reports show it: a URL with user information in it loses that part. */
export function displayTarget(target: string): string {
  return target.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}
