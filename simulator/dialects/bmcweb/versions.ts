/**
 * bmcweb by version: what changed in its D-Bus REST stack between the builds labs meet.
 *
 * - `current`: upstream master of 2026 (features/openbmc_rest/openbmc_dbus_rest.hpp,
 *   features/webui_login/login_routes.hpp, include/cookies.hpp, http/).
 * - `2023`: a build of June 2023, commit 8d69c668d9be (the last before ed5f8954ff "Break out
 *   request completion from connection" dropped the reason-phrase bodies), as OpenBMC releases of
 *   that year ship it (include/openbmc_dbus_rest.hpp, include/login_routes.hpp,
 *   include/authentication.hpp, include/forward_unauthorized.hpp, http/http_connection.hpp).
 *
 * Everything not named here is the same in both (dbus_monitor.hpp's /subscribe among it).
 */
export const BMCWEB_VERSIONS = ['2023', 'current'] as const;
export type BmcwebVersion = (typeof BMCWEB_VERSIONS)[number];

export interface BmcwebBehaviour {
  /**
   * login_routes.hpp: `{"data": [user, password]}` is taken ("looksLikePhosphorRest") and answered
   * with a phosphor-rest envelope and the session cookies; `{"data": {"username", "password"}}`
   * too, answered with the token. Removed upstream in 11399367ec (2026-02): only
   * `{"username", "password"}`.
   */
  phosphorLogin: boolean;
  /** login_routes.hpp: the `{"username", "password"}` login sets the cookies too (not in 2023: the token only). */
  tokenLoginSetsCookies: boolean;
  /** The session cookie: `SESSION` until c76f964a8f (2025-03) renamed it `BMCWEB-SESSION`. */
  sessionCookie: 'SESSION' | 'BMCWEB-SESSION';
  /** include/cookies.hpp setSessionCookies adds `Path=/` (2023: no Path). */
  cookiePath: boolean;
  /**
   * http_connection.hpp completeRequest (2023): `if (res.resultInt() >= 400 && res.body().empty())
   * res.body() = std::string(res.reason());` a refusal without a body gets its reason phrase as a
   * plain-text body, without a Content-Type.
   */
  reasonPhraseBodies: boolean;
  /**
   * handleGet of a path node the mapper names without interfaces. 2023: the mapper gave such nodes
   * the default interfaces, GetAll of each answers nothing, and the answer is 200 `{"data": {}}`.
   * Current (65622a5d6f, 2025-01, with phosphor-objmgr 7cc8d00): each service is skipped, nothing
   * writes the response, and the default 200 goes out with an empty body.
   */
  emptyNodeBody: 'envelope' | 'none';
  /** forward_unauthorized.hpp sendUnauthorized, to a browser when no web UI is installed. */
  browserUnauthorizedText: string;
  /** a39a778031 (2026-03): /login/, /logout/, /subscribe/ and /upload/image/ answer as without the slash. */
  slashRoutes: boolean;
}

const BEHAVIOURS: Readonly<Record<BmcwebVersion, BmcwebBehaviour>> = {
  '2023': {
    phosphorLogin: true,
    tokenLoginSetsCookies: false,
    sessionCookie: 'SESSION',
    cookiePath: false,
    reasonPhraseBodies: true,
    emptyNodeBody: 'envelope',
    browserUnauthorizedText: 'Unauthorized',
    slashRoutes: false,
  },
  current: {
    phosphorLogin: false,
    tokenLoginSetsCookies: true,
    sessionCookie: 'BMCWEB-SESSION',
    cookiePath: true,
    reasonPhraseBodies: false,
    emptyNodeBody: 'none',
    browserUnauthorizedText: 'No authentication provided, and no login UI present to forward to.',
    slashRoutes: true,
  },
};

export function bmcwebBehaviour(version: BmcwebVersion): BmcwebBehaviour {
  return BEHAVIOURS[version];
}

/** The reason phrases bmcweb's completeRequest wrote (boost::beast obsolete_reason). */
export function reasonPhrase(status: number): string {
  return REASONS[status] ?? '';
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
