import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import { loggedIn, requireLogin, type Login } from './basic-auth.ts';
import { browserGuard, browserPolicy, browserRequest, checkBrowserRequest, type BrowserPolicy } from './browser-guard.ts';

/** Who may use the HTTP port: the browser guard's policy and the optional login (docs/security.md). */
export interface Access {
  policy: BrowserPolicy;
  login: Login | null;
}

/** The defaults: the guard with no extra hosts or origins, no login. */
export const openAccess = (): Access => ({ policy: browserPolicy(), login: null });

/**
 * The middleware that goes in front of every route: the browser guard, then the login. Mounted
 * before the router, so a route added later (an `/mcp` endpoint, say) is covered as it is.
 */
export function accessMiddleware(access: Access): Middleware[] {
  return [browserGuard(access.policy), requireLogin(access.login)];
}

/** A refusal written on the raw socket of a WebSocket upgrade, before any frame. */
export interface UpgradeRefusal {
  status: number;
  body: { detail: string };
  headers?: Record<string, string>;
}

/** The same checks as HTTP requests, for the live push's upgrade request: null lets it upgrade. */
export function upgradeCheck(access: Access): (request: IncomingMessage) => Promise<UpgradeRefusal | null> {
  return async (request) => {
    const refusal = checkBrowserRequest(browserRequest(request.method ?? 'GET', request.headers, true, request.url?.split('?')[0]), access.policy);
    if (refusal) return { status: refusal.status, body: { detail: refusal.detail } };
    if (access.login === null) return null;
    const denied = await loggedIn(request.headers, access.login, request.socket.remoteAddress ?? '');
    return denied ? { status: denied.status, body: { detail: denied.detail }, headers: denied.headers } : null;
  };
}
