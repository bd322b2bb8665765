import { createHash, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { Context, Middleware, Next } from 'koa';
import type { AuthUser } from '../config/config-files.ts';
import { OPEN_PATHS } from './browser-guard.ts';
import { HttpError } from './errors.ts';
import { OPENER_POLICY, openedByAnotherSite } from './arrival.ts';
import { LOGGED_IN_PAGES, SESSION_COOKIE, Sessions, sessionCookie, sessionToken } from './login-session.ts';
import { LoginThrottle } from './login-throttle.ts';
import { signedRead } from './signed-reads.ts';

/** How the login is configured: `--auth USER:PASSWORD`, or the users of `--auth-file`. */
export type LoginSetting = { readonly user: string; readonly password: string } | { readonly users: readonly AuthUser[] };

/** The login, built once from the setting: the check of a user name and password, and what guards it. */
export interface Login {
  verify(user: string, password: string): Promise<boolean>;
  /** Failed logins per client address. */
  readonly throttle: LoginThrottle;
  /** The inbox's browser sessions (the cookie set by the login page). */
  readonly sessions: Sessions;
  /** Logins checked before, by address (SHA-256 digests): they pass without bcrypt or throttle. */
  readonly verified: Set<string>;
  /** True while as many bcrypt comparisons run as may run at once. */
  busy(): boolean;
}

/** Where a browser logs in: its challenge's realm covers only this folder, so no other path gets the login from the browser. */
const LOGIN_PATH = '/auth/login';
/** The login page's challenge: a browser shows its prompt and keeps the answer for `/auth/` only. */
const LOGIN_CHALLENGE = 'Basic realm="Pigeonhole"';
/**
 * Every other path's challenge, for clients that wait for one (wget, Playwright's
 * httpCredentials). Another realm: a browser never answers it with the login it keeps for the
 * login page, so an image of another site's page cannot use that login either.
 */
const API_CHALLENGE = 'Basic realm="Pigeonhole API"';

export interface LoginRefusal {
  status: 401 | 429;
  detail: string;
  headers: Record<string, string>;
}

/** Checked logins kept so a client's many requests cost one bcrypt comparison (~80 ms), not one each. */
const VERIFIED_CACHE = 1000;
/** bcrypt comparisons running at once; more are answered 429 at once, so no flood holds the process. */
const BCRYPT_AT_ONCE = 4;

const NO_LOGIN = 'This Pigeonhole needs a user name and password (HTTP Basic, as set with --auth or --auth-file).';
const ENDED =
  'Your login session has ended (the server restarted, or too many sessions were opened). Open the inbox again to log in (a script: send HTTP Basic).';

/** `now`: the real-time source of the failed-login throttle (default Date.now). */
export function createLogin(setting: LoginSetting | null, options: { now?: () => number } = {}): Login | null {
  if (setting === null) return null;
  const guards = { throttle: new LoginThrottle(options.now), sessions: new Sessions(), verified: new Set<string>() };
  if ('password' in setting) {
    const user = digest(setting.user);
    const password = digest(setting.password);
    return {
      ...guards,
      busy: () => false,
      // Both compared whole in constant time, and both always: the answer's timing tells nothing.
      verify: async (u, p) => Number(timingSafeEqual(digest(u), user)) + Number(timingSafeEqual(digest(p), password)) === 2,
    };
  }
  const hashes = new Map(setting.users.map((u) => [u.user, u.hash]));
  // An unknown user costs a comparison at the same cost too, so timing does not say which names exist.
  const rounds = Number(setting.users[0]?.hash.slice(4, 6)) || 10;
  let decoy: Promise<string> | undefined;
  let running = 0;
  return {
    ...guards,
    busy: () => running >= BCRYPT_AT_ONCE,
    async verify(user, password) {
      const hash = hashes.get(user);
      decoy ??= bcrypt.hash('not a password', rounds);
      running += 1;
      try {
        const ok = await bcrypt.compare(password, hash ?? (await decoy));
        return ok && hash !== undefined;
      } finally {
        running -= 1;
      }
    },
  };
}

/**
 * The `Authorization: Basic` header of a client at `address` checked against the login: null
 * when it lets the request in. A login this address used before passes on a digest; otherwise
 * an address that failed too often is answered 429 before any comparison, and a failure counts.
 */
async function checkLogin(authorization: string | undefined, login: Login, address: string, challenge = API_CHALLENGE): Promise<LoginRefusal | null> {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match) return loginRefusal(NO_LOGIN, challenge);
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // Keyed by address too: a guess of another address that happens to be right is not let in past
  // its throttle. A set of SHA-256 digests: what a lookup's timing could tell is about a digest,
  // which says nothing of the password.
  const key = digest(`${address}\0${decoded}`).toString('hex');
  if (login.verified.has(key)) return null;
  const wait = login.throttle.retryAfter(address);
  if (wait > 0) {
    return { status: 429, detail: `Too many failed logins from this address: try again in ${wait} seconds.`, headers: { 'Retry-After': String(wait) } };
  }
  if (login.busy()) return { status: 429, detail: 'Too many logins are being checked at once: try again in 1 second.', headers: { 'Retry-After': '1' } };
  if (colon < 0 || !(await login.verify(decoded.slice(0, colon), decoded.slice(colon + 1)))) {
    login.throttle.failed(address);
    return loginRefusal('Wrong user name or password.', challenge);
  }
  if (login.verified.size >= VERIFIED_CACHE) login.verified.clear();
  login.verified.add(key);
  return null;
}

/**
 * Whether a request is logged in, by its session cookie or HTTP Basic: null when it is, or the
 * refusal. A request with a session cookie that has ended comes from the inbox page itself
 * (no other site's request carries it): it gets no Basic challenge, so the browser shows no
 * prompt for a realm it would then answer on any site's behalf; the page logs in again.
 */
export async function loggedIn(
  headers: { cookie?: string | undefined; authorization?: string | undefined },
  login: Login,
  address: string,
): Promise<LoginRefusal | null> {
  if (hasSession(headers.cookie, login)) return null;
  if (sessionToken(headers.cookie) !== undefined && headers.authorization === undefined) {
    return { status: 401, detail: ENDED, headers: { 'WWW-Authenticate': `Session realm="Pigeonhole", cookie="${SESSION_COOKIE}"` } };
  }
  return checkLogin(headers.authorization, login, address);
}

function hasSession(cookie: string | undefined, login: Login): boolean {
  const token = sessionToken(cookie);
  return token !== undefined && login.sessions.has(token);
}

/** Whether a path is behind the login: all but /v1 (its own Api-Key auth) and the health probes. */
function loginApplies(path: string): boolean {
  return !OPEN_PATHS.includes(path) && path !== '/v1' && !path.startsWith('/v1/');
}

/**
 * The login in front of the inbox UI, the sandbox API, /metrics and whatever else is mounted
 * later (not /v1, /livez or /readyz): a session cookie (browsers, after the login page) or HTTP
 * Basic (clients). The inbox page sends a browser without a session to the login page, which
 * asks with the browser's prompt and starts a session. Without a login configured it lets
 * everything through.
 */
export function requireLogin(login: Login | null): Middleware {
  return async (ctx: Context, next: Next) => {
    if (login === null || !loginApplies(ctx.path) || signedRead(ctx.path, ctx.URL.searchParams)) return next();
    if (ctx.path === LOGIN_PATH && (ctx.method === 'GET' || ctx.method === 'HEAD')) return loginPage(ctx, login);
    const headers = { cookie: ctx.get('cookie') || undefined, authorization: ctx.get('authorization') || undefined };
    if (ctx.path === '/' && headers.authorization === undefined && !hasSession(headers.cookie, login)) {
      ctx.status = 303;
      ctx.set('Location', LOGIN_PATH);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { detail: `Log in at ${LOGIN_PATH}.` };
      return;
    }
    const refusal = await loggedIn(headers, login, ctx.ip);
    if (refusal) throw new HttpError(refusal.status, { detail: refusal.detail }, refusal.headers);
    await next();
  };
}

/** The login page: the browser's prompt (HTTP Basic), then a session cookie and the inbox. */
async function loginPage(ctx: Context, login: Login): Promise<void> {
  const refusal = await checkLogin(ctx.get('authorization') || undefined, login, ctx.ip, LOGIN_CHALLENGE);
  if (refusal) throw new HttpError(refusal.status, { detail: refusal.detail }, refusal.headers);
  ctx.set('Set-Cookie', sessionCookie(login.sessions.start()));
  ctx.set('Cache-Control', 'no-store');
  const page = openedByAnotherSite(ctx) ? LOGGED_IN_PAGES.elsewhere : LOGGED_IN_PAGES.here;
  ctx.set('Content-Security-Policy', page.policy);
  ctx.set('Cross-Origin-Opener-Policy', OPENER_POLICY);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page.html;
}

function loginRefusal(detail: string, challenge: string): LoginRefusal {
  return { status: 401, detail, headers: { 'WWW-Authenticate': challenge } };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
