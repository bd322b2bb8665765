import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import type { Context, Middleware, Next } from 'koa';
import { HttpError } from './errors.ts';
import { signedRead } from './signed-reads.ts';

/**
 * Which hosts and origins browser requests may use: the defaults, `--host`, and
 * `--allowed-hosts` / `--allowed-origins` (docs/security.md).
 */
export interface BrowserPolicy {
  /** Host names allowed beyond the defaults: a name, or `.name` for it and every subdomain; `*` allows any. */
  readonly hosts: readonly string[];
  /** Origins allowed beyond the defaults (`scheme://host[:port]`, lower case); `*` allows any but `null`. */
  readonly origins: readonly string[];
  /** The address the server listens on (`--host`): a name given there is an allowed host. */
  readonly listenHost: string | null;
  /**
   * Names for private use (dotless names, `*.internal`, `*.local`, `*.home.arpa`) are allowed
   * hosts: only when the server listens on an address other machines reach (a container's
   * `0.0.0.0`, where compose service names are how clients call it). On loopback (the default)
   * they are not: any LAN peer can answer them (mDNS, LLMNR), so a web page can be rebound to them.
   */
  readonly privateNames: boolean;
}

export function browserPolicy(options: { hosts?: readonly string[]; origins?: readonly string[]; listenHost?: string | null } = {}): BrowserPolicy {
  const listenHost = options.listenHost ? hostName(options.listenHost) : null;
  return Object.freeze({
    hosts: Object.freeze((options.hosts ?? []).map((h) => h.toLowerCase())),
    origins: Object.freeze((options.origins ?? []).map((o) => o.toLowerCase())),
    listenHost,
    privateNames: listenHost !== null && !loopbackName(listenHost),
  });
}

/** A loopback address or `localhost` (unknown: treated as the default bind, 127.0.0.1). */
function loopbackName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || (isIP(name) === 4 && name.startsWith('127.'));
}

/** The parts of a request the guard decides on. */
export interface BrowserRequest {
  method: string;
  host?: string | undefined;
  origin?: string | undefined;
  secFetchSite?: string | undefined;
  /** `Access-Control-Request-Method` of a CORS preflight (an OPTIONS that announces a request). */
  preflightMethod?: string | undefined;
  /** A WebSocket upgrade: it needs an allowed Origin, like a request that changes state. */
  upgrade?: boolean;
  /** The path, for the resource isolation of reads (absent: treated as a path that reveals state). */
  path?: string | undefined;
  /** `Sec-Fetch-Mode` and `Sec-Fetch-Dest`: a top-level navigation may open the inbox page cross-site. */
  secFetchMode?: string | undefined;
  secFetchDest?: string | undefined;
  /** The path carries its own valid signature (an inline image of the preview: server/http/signed-reads.ts). */
  signed?: boolean;
}

/** Why a request was refused: the header at fault and a sentence saying what allows it. */
export interface Refusal {
  status: 403;
  header: 'Host' | 'Origin' | 'Sec-Fetch-Site';
  detail: string;
}

/** The health probes answer whoever asks (they say nothing about the mail): no host check, no login. */
export const OPEN_PATHS: readonly string[] = ['/livez', '/readyz'];

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function browserRequest(method: string, headers: IncomingHttpHeaders, upgrade = false, path?: string): BrowserRequest {
  return {
    method,
    host: headers.host,
    origin: one(headers.origin),
    secFetchSite: one(headers['sec-fetch-site']),
    secFetchMode: one(headers['sec-fetch-mode']),
    secFetchDest: one(headers['sec-fetch-dest']),
    preflightMethod: method === 'OPTIONS' ? one(headers['access-control-request-method']) : undefined,
    upgrade,
    path,
  };
}

/**
 * Pages a link from another site may open (a top-level navigation): the inbox page, and the
 * login it sends a browser to first.
 */
const NAVIGABLE_PATHS: readonly string[] = ['/', '/auth/login'];

/**
 * Whether a request says it comes from a page of another site (`Sec-Fetch-Site: cross-site`) and
 * is not one the resource isolation policy lets through: a top-level navigation to the inbox
 * page, `/v1` (its API key is a header no page can attach without CORS, which /v1 never
 * grants), the health probes, a signed path (the preview's inline images), or a request whose
 * `Origin` is an allowed one (CORS mode).
 */
function crossSiteRead(request: BrowserRequest, policy: BrowserPolicy): boolean {
  if (lower(request.secFetchSite) !== 'cross-site') return false;
  const path = request.path ?? '';
  if (path === '/v1' || path.startsWith('/v1/') || OPEN_PATHS.includes(path) || request.signed === true) return false;
  if (request.origin !== undefined && isAllowedOrigin(request.origin, request.host, policy)) return false;
  const navigation = lower(request.secFetchMode) === 'navigate' && lower(request.secFetchDest) === 'document';
  return !(navigation && (request.method === 'GET' || request.method === 'HEAD') && NAVIGABLE_PATHS.includes(path));
}

/**
 * The one decision for HTTP requests and WebSocket upgrades: null to serve the request, or the
 * refusal. The `Host` must be an allowed host, on every request: a page whose domain name an
 * attacker re-points at 127.0.0.1 (DNS rebinding) reads with same-origin requests that carry
 * neither `Origin` nor `Sec-Fetch-*` (browsers send those only to secure origins), so only
 * the name tells it apart. Anything that changes state, a CORS preflight and the WebSocket
 * upgrade also need an allowed `Origin` when one is sent; `Origin: null` never is. Clients
 * that send no `Origin` (curl, SDKs, test suites) are not asked for one. A read that says it
 * comes from another site (`Sec-Fetch-Site: cross-site`) is refused unless its `Origin` is an
 * allowed one or it is a link to the inbox page (resource isolation).
 */
export function checkBrowserRequest(request: BrowserRequest, policy: BrowserPolicy): Refusal | null {
  if (request.host !== undefined && request.host.trim() !== '' && !isAllowedHost(request.host, policy)) {
    const name = hostName(request.host) ?? request.host;
    return refuse(
      'Host',
      `Host ${JSON.stringify(request.host)} is not an allowed host, so this request is refused (it could come from a web page whose name was pointed at this machine). If you reach Pigeonhole by this name, start it with --allowed-hosts ${name} (or PIGEONHOLE_ALLOWED_HOSTS=${name}).`,
    );
  }
  const needsOrigin = request.upgrade === true || !READ_METHODS.has(request.method) || request.preflightMethod !== undefined;
  if (!needsOrigin) return crossSiteRead(request, policy) ? crossSiteRefusal(request) : null;
  const what = request.upgrade ? 'open the live push' : 'change anything';
  if (request.origin !== undefined) {
    if (request.origin.trim().toLowerCase() === 'null') {
      return refuse(
        'Origin',
        `Origin "null" (a sandboxed frame, a file:// page or a redirect) may not ${what}; no setting allows it. Serve the page from an http(s) origin and allow that with --allowed-origins.`,
      );
    }
    if (!isAllowedOrigin(request.origin, request.host, policy)) {
      const origin = request.origin.trim();
      return refuse(
        'Origin',
        `Origin ${JSON.stringify(origin)} may not ${what} here. To allow pages from it, start Pigeonhole with --allowed-origins ${origin} (or PIGEONHOLE_ALLOWED_ORIGINS=${origin}).`,
      );
    }
    return null;
  }
  // Browsers send Origin with every request that changes state; one without it that says it
  // is cross-site cannot be told apart from an attack, whatever the settings.
  if (request.secFetchSite?.trim().toLowerCase() === 'cross-site') {
    return refuse(
      'Sec-Fetch-Site',
      `Sec-Fetch-Site "cross-site" without an Origin header may not ${what}; no setting allows it. Send the request from a page on an allowed origin (--allowed-origins), which sends its Origin.`,
    );
  }
  return null;
}

/**
 * The refusal of a read from another site: decided on the headers alone, before any route runs,
 * so a capture that matches and one that does not are answered alike (issue 19).
 */
function crossSiteRefusal(request: BrowserRequest): Refusal {
  if (request.origin !== undefined && request.origin.trim().toLowerCase() !== 'null') {
    const origin = request.origin.trim();
    return refuse(
      'Origin',
      `Origin ${JSON.stringify(origin)} may not read anything here. To allow pages from it, start Pigeonhole with --allowed-origins ${origin} (or PIGEONHOLE_ALLOWED_ORIGINS=${origin}).`,
    );
  }
  return refuse(
    'Sec-Fetch-Site',
    'Sec-Fetch-Site "cross-site": a page on another site may not read anything here (an image, a frame or a fetch of it); no setting allows it without an Origin header. A link still opens the inbox; pages on an origin given to --allowed-origins read with fetch() in CORS mode, which sends their Origin.',
  );
}

/**
 * Names reserved for private use: public DNS cannot serve them, but a peer on the LAN can (mDNS
 * answers `*.local`, LLMNR and NetBIOS dotless names), so they are allowed only off loopback.
 */
const PRIVATE_SUFFIXES = ['.internal', '.local', '.home.arpa'];

/**
 * Allowed hosts (the rule of Vite and webpack-dev-server for a loopback bind): `localhost`,
 * `*.localhost` (browsers resolve it to loopback themselves) and any IP address (rebinding
 * needs a domain name), the `--host`, and `--allowed-hosts`. On an address other machines reach
 * (`privateNames`), also names without a dot (a compose service such as `pigeonhole`),
 * `*.internal` (such as `host.docker.internal`), `*.local` (Kubernetes' `*.svc.cluster.local`)
 * and `*.home.arpa`. Any port.
 */
function isAllowedHost(host: string, policy: BrowserPolicy): boolean {
  if (policy.hosts.includes('*')) return true;
  const name = hostName(host);
  if (name === null) return false;
  if (isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost')) return true;
  if (policy.privateNames && (!name.includes('.') || PRIVATE_SUFFIXES.some((suffix) => name.endsWith(suffix)))) return true;
  if (name === policy.listenHost) return true;
  return policy.hosts.some((allowed) => (allowed.startsWith('.') ? name === allowed.slice(1) || name.endsWith(allowed) : name === allowed));
}

/**
 * Allowed origins: the request's own (same host and port as `Host`), any http(s) origin on
 * localhost or a loopback address (the developer's own app, on any port), and
 * `--allowed-origins` (`*`: any). Never `null`.
 */
function isAllowedOrigin(origin: string, host: string | undefined, policy: BrowserPolicy): boolean {
  const value = origin.trim().toLowerCase();
  if (value === 'null' || value === '') return false;
  if (policy.origins.includes('*') || policy.origins.includes(value)) return true;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (
    host !== undefined &&
    url.host ===
      host
        .trim()
        .toLowerCase()
        .replace(/\.(?=:\d+$|$)/, '')
  )
    return true;
  const name = url.hostname.replace(/^\[|\]$/g, '');
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || (isIP(name) === 4 && name.startsWith('127.'));
}

/** The host name of a `Host` header, lower case, without port, brackets or a trailing dot; null if malformed. */
export function hostName(host: string): string | null {
  const value = host.trim().toLowerCase();
  const v6 = /^\[([0-9a-f:.]+)\](?::\d*)?$/.exec(value);
  if (v6) return isIP(v6[1]!) === 6 ? v6[1]! : null;
  if (isIP(value) === 6) return value;
  const named = /^([a-z0-9_.-]+?)\.?(?::\d*)?$/.exec(value);
  return named ? named[1]! : null;
}

function refuse(header: Refusal['header'], detail: string): Refusal {
  return { status: 403, header, detail };
}

function lower(value: string | undefined): string | undefined {
  return value?.trim().toLowerCase();
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const CORS_METHODS = 'GET, HEAD, POST, PATCH, DELETE';

/**
 * Every request but the health probes passes here first: a refusal is thrown (403
 * `{"detail"}`, rendered by the error middleware). On the sandbox API (`/api/...`) a request
 * from an allowed origin gets CORS headers so a test page on another origin can read the
 * answer, and a preflight is answered here (before the login, which preflights never carry);
 * no other origin ever gets `Access-Control-Allow-Origin`.
 */
export function browserGuard(policy: BrowserPolicy): Middleware {
  return async (ctx: Context, next: Next) => {
    if (OPEN_PATHS.includes(ctx.path)) return next();
    const sandboxApi = ctx.path === '/api' || ctx.path.startsWith('/api/');
    // No answer of the sandbox API is ever read as another type than it says (a script, say).
    if (sandboxApi) ctx.set('X-Content-Type-Options', 'nosniff');
    // Without a query string there is no signature: no URL parsed for it (every /v1 send).
    const signed = ctx.querystring !== '' && signedRead(ctx.path, ctx.URL.searchParams);
    const request = { ...browserRequest(ctx.method, ctx.req.headers, false, ctx.path), signed };
    const refusal = checkBrowserRequest(request, policy);
    if (refusal) throw new HttpError(refusal.status, { detail: refusal.detail });
    if (!sandboxApi || request.origin === undefined) return next();
    ctx.vary('Origin');
    if (!isAllowedOrigin(request.origin, request.host, policy)) return next();
    ctx.set('Access-Control-Allow-Origin', request.origin.trim());
    if (request.preflightMethod === undefined) return next();
    ctx.vary('Access-Control-Request-Method');
    ctx.vary('Access-Control-Request-Headers');
    ctx.set('Access-Control-Allow-Methods', CORS_METHODS);
    const asked = ctx.get('access-control-request-headers');
    if (/^[\w-]+(\s*,\s*[\w-]+)*$/.test(asked.trim())) ctx.set('Access-Control-Allow-Headers', asked.trim());
    // Chrome asks before a public page reaches a private address (Private Network Access).
    if (ctx.get('access-control-request-private-network') === 'true') ctx.set('Access-Control-Allow-Private-Network', 'true');
    ctx.set('Access-Control-Max-Age', '600');
    ctx.status = 204;
  };
}
