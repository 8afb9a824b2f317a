/**
 * Credentials written into a target URL (https://user:secret@bmc): taken out of it, like curl does,
 * so that the URL printed, recorded in results and sent on the wire never carries them.
 */
import { withoutTrailingSlashes } from './trim-end.js';

export interface SplitTarget {
  url: string;
  user?: string;
  password?: string;
}

export function splitCredentials(target: string): SplitTarget {
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    return { url: target };
  }
  if (!u.username && !u.password) return { url: target };
  const user = u.username ? decodeURIComponent(u.username) : undefined;
  const password = u.password ? decodeURIComponent(u.password) : undefined;
  u.username = '';
  u.password = '';
  return { url: withoutTrailingSlashes(u.href), ...(user !== undefined && { user }), ...(password !== undefined && { password }) };
}

/** The flags of a command that talks to one target, with URL credentials moved into user and password. */
export function withUrlCredentials<T extends { target?: string; user: string; password: string }>(flags: T): T {
  if (!flags.target) return flags;
  const split = splitCredentials(flags.target);
  return { ...flags, target: split.url, user: split.user ?? flags.user, password: split.password ?? flags.password };
}

/**
 * The https:// URL a target written without one most likely means: `bmc:443` and `10.0.0.5`
 * without a scheme, `htps://bmc` or `ftp://bmc` with a wrong one, `https:/bmc` with a slash
 * missing, and `http://bmc` (the interface is served over HTTPS).
 */
export function httpsFormOf(target: string): string {
  const rest = /^[a-z][a-z0-9+.-]*:\/\/+(.*)$/i.exec(target)?.[1] ?? /^https?:\/*(.*)$/i.exec(target)?.[1] ?? target;
  return withoutTrailingSlashes(`https://${rest}`);
}
