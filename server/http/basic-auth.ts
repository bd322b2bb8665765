import { createHash, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { Context, Middleware, Next } from 'koa';
import type { AuthUser } from '../config.ts';
import { OPEN_PATHS } from './browser-guard.ts';
import { HttpError } from './errors.ts';

/** How the login is configured: `--auth USER:PASSWORD`, or the users of `--auth-file`. */
export type LoginSetting = { readonly user: string; readonly password: string } | { readonly users: readonly AuthUser[] };

/** Checks a user name and password; built once from the setting. */
export interface Login {
  verify(user: string, password: string): Promise<boolean>;
}

/** The challenge a browser answers with its login prompt. */
const LOGIN_CHALLENGE = 'Basic realm="Pigeonhole"';

export interface LoginRefusal {
  status: 401;
  detail: string;
  headers: { 'WWW-Authenticate': string };
}

/** Checked logins kept so a page's many requests cost one bcrypt comparison (~80 ms), not one each. */
const VERIFIED_CACHE = 1000;

export function createLogin(setting: LoginSetting | null): Login | null {
  if (setting === null) return null;
  if ('password' in setting) {
    const user = digest(setting.user);
    const password = digest(setting.password);
    return {
      // Both compared whole in constant time, and both always: the answer's timing tells nothing.
      verify: async (u, p) => Number(timingSafeEqual(digest(u), user)) + Number(timingSafeEqual(digest(p), password)) === 2,
    };
  }
  const hashes = new Map(setting.users.map((u) => [u.user, u.hash]));
  const verified = new Set<string>();
  // An unknown user costs a comparison at the same cost too, so timing does not say which names exist.
  const rounds = Number(setting.users[0]?.hash.slice(4, 6)) || 10;
  let decoy: Promise<string> | undefined;
  return {
    async verify(user, password) {
      const key = digest(`${user}\0${password}`).toString('hex');
      if (verified.has(key)) return true;
      const hash = hashes.get(user);
      decoy ??= bcrypt.hash('not a password', rounds);
      const ok = await bcrypt.compare(password, hash ?? (await decoy));
      if (!ok || hash === undefined) return false;
      if (verified.size >= VERIFIED_CACHE) verified.clear();
      verified.add(key);
      return true;
    },
  };
}

/** The `Authorization: Basic` header checked against the login: null when it lets the request in. */
export async function checkLogin(authorization: string | undefined, login: Login): Promise<LoginRefusal | null> {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match) return loginRefusal('This Pigeonhole needs a user name and password (HTTP Basic, as set with --auth or --auth-file).');
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0 || !(await login.verify(decoded.slice(0, colon), decoded.slice(colon + 1)))) return loginRefusal('Wrong user name or password.');
  return null;
}

/** Whether a path is behind the login: all but /v1 (its own Api-Key auth) and the health probes. */
function loginApplies(path: string): boolean {
  return !OPEN_PATHS.includes(path) && path !== '/v1' && !path.startsWith('/v1/');
}

/**
 * HTTP Basic in front of the inbox UI, the sandbox API, /metrics and whatever else is mounted
 * later (not /v1, /livez or /readyz). Without a login configured it lets everything through.
 */
export function requireLogin(login: Login | null): Middleware {
  return async (ctx: Context, next: Next) => {
    if (login === null || !loginApplies(ctx.path)) return next();
    const refusal = await checkLogin(ctx.get('authorization') || undefined, login);
    if (refusal) throw new HttpError(refusal.status, { detail: refusal.detail }, refusal.headers);
    await next();
  };
}

function loginRefusal(detail: string): LoginRefusal {
  return { status: 401, detail, headers: { 'WWW-Authenticate': LOGIN_CHALLENGE } };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
