/**
 * The session cookie jar. Cookie names differ between servers (`sid`, `SESSION`,
 * `BMCWEB-SESSION`), so nothing here knows any name except the XSRF one bmcweb defines.
 */
import { Cookie, CookieJar, type SerializedCookieJar } from 'tough-cookie';

export type SerializedCookies = SerializedCookieJar;

export const XSRF_COOKIE = 'XSRF-TOKEN';

export class SessionCookies {
  private jar: CookieJar;
  private readonly host: string;

  constructor(baseUrl: string, serialized?: SerializedCookies) {
    this.host = new URL(baseUrl).host;
    this.jar = serialized ? CookieJar.deserializeSync(serialized) : SessionCookies.emptyJar();
  }

  private static emptyJar(): CookieJar {
    return new CookieJar(undefined, { looseMode: true, allowSecureOnLocal: true, rejectPublicSuffixes: false });
  }

  /**
   * The jar sees every exchange as https on the target's host, so `Secure` cookies are kept and
   * sent even on a plain-http test target. Unparseable paths fall back to `/`.
   */
  private urlFor(path: string): string {
    try {
      const url = new URL(path.startsWith('/') ? path : `/${path}`, `https://${this.host}`);
      if (url.host === this.host) return url.href;
    } catch {
      // fall through
    }
    return `https://${this.host}/`;
  }

  /** Stores the cookies of a response. A Domain attribute that does not match the host is dropped. */
  store(setCookie: string | string[] | undefined, path: string): Cookie[] {
    const stored: Cookie[] = [];
    const headers = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie];
    const url = this.urlFor(path);
    for (const header of headers) {
      const cookie = Cookie.parse(header, { loose: true });
      if (!cookie) continue;
      let saved: Cookie | undefined;
      try {
        saved = this.jar.setCookieSync(cookie, url);
      } catch {
        // BMCs are reached by IP while their cookies may name a domain: keep them for this host.
        cookie.domain = null;
        saved = this.jar.setCookieSync(cookie, url, { ignoreError: true });
      }
      if (saved) stored.push(saved);
    }
    return stored;
  }

  /** The Cookie header value for a request to `path` ('' when there is none). */
  header(path = '/'): string {
    return this.jar.getCookieStringSync(this.urlFor(path));
  }

  /** All cookies that would go with a request to `path`. */
  list(path = '/'): Cookie[] {
    return this.jar.getCookiesSync(this.urlFor(path));
  }

  xsrfToken(path = '/'): string | undefined {
    return this.list(path).find((c) => c.key === XSRF_COOKIE)?.value;
  }

  clear(): void {
    this.jar.removeAllCookiesSync();
  }

  serialize(): SerializedCookies {
    const out = this.jar.serializeSync();
    if (!out) throw new Error('The cookie store cannot be serialised.');
    return out;
  }
}
