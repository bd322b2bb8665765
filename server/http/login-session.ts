import { createHash, randomBytes } from 'node:crypto';
import { ARRIVAL_NAME } from './arrival.ts';

/** The inbox's session cookie, set by the login page. */
export const SESSION_COOKIE = 'pigeonhole_session';
/** Sessions kept; past this the oldest ends (its browser logs in again, without a prompt). */
const MAX_SESSIONS = 1000;

/**
 * Browser sessions of the inbox, in memory (a restart ends them): a random token in a cookie
 * `SameSite=Strict`, which a browser never sends with a request another site's page makes, so
 * the inbox's own requests carry the login and another site's cannot (docs/security.md).
 */
export class Sessions {
  /** SHA-256 of each token (the tokens themselves are not kept), oldest first. */
  readonly #tokens = new Set<string>();

  /** A new session: the token for the cookie. */
  start(): string {
    const token = randomBytes(32).toString('base64url');
    this.#tokens.add(digest(token));
    if (this.#tokens.size > MAX_SESSIONS) this.#tokens.delete(this.#tokens.values().next().value!);
    return token;
  }

  /** Whether the token is a live session's. */
  has(token: string): boolean {
    return this.#tokens.has(digest(token));
  }
}

/** The `Set-Cookie` of a new session: only this server's pages, never to scripts, never cross-site. */
export function sessionCookie(token: string): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}

/** The session cookie's value in a `Cookie` header, if there is one. */
export function sessionToken(cookie: string | undefined): string | undefined {
  for (const part of (cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === SESSION_COOKIE) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * What the login page answers once the login is right: a page that opens the inbox. Not a
 * redirect: after a link from another site the browser would not send a `SameSite=Strict`
 * cookie on the redirect it follows, but does on a navigation this page starts itself.
 */
/** The page the login answers with: `elsewhere` when another site started the load (arrival.ts). */
export const LOGGED_IN_PAGES = { here: loggedInPage(false), elsewhere: loggedInPage(true) };

function loggedInPage(elsewhere: boolean): { html: string; policy: string } {
  // Keeps the #fragment (a message's address) the browser carried here, and drops a user:password@
  // of the address (fetch refuses to run on a page with one); the refresh is the fallback. Opened
  // by another site, it tells the inbox so (its own load of / is same-origin, so the server cannot).
  const arrival = elsewhere ? `sessionStorage.setItem('${ARRIVAL_NAME}', 'elsewhere');` : '';
  const script = `${arrival}location.replace(location.origin + '/' + location.hash);`;
  const hash = createHash('sha256').update(script, 'utf8').digest('base64');
  return {
    html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="1; url=/"><title>Pigeonhole</title><script>${script}</script></head>
<body><p>Logged in. <a href="/">Open the inbox</a>.</p></body></html>`,
    policy: `default-src 'none'; script-src 'sha256-${hash}'; frame-ancestors 'none'`,
  };
}

function digest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
