import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** This process's key for signed reads: a restart makes new ones (the preview is fetched anew each time). */
const KEY = randomBytes(32);
/** The query parameter that carries the signature. */
const PARAM = 'sig';

/**
 * A path with its signature: what the HTML preview links its inline (cid:) images with. The
 * preview is a sandboxed frame with an opaque origin, so the browser marks its image requests
 * `Sec-Fetch-Site: cross-site` and sends no `SameSite` cookie with them; the signature, which
 * only a reader of the preview can have, lets exactly that path through the resource isolation
 * and the login (docs/security.md).
 */
export function signedPath(path: string): string {
  return `${path}?${PARAM}=${signature(path)}`;
}

/** Whether a request's path carries its own valid signature (`?sig=`). */
export function signedRead(path: string, search: URLSearchParams): boolean {
  const value = search.get(PARAM);
  if (value === null) return false;
  const given = Buffer.from(value, 'utf8');
  const expected = Buffer.from(signature(path), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function signature(path: string): string {
  return createHmac('sha256', KEY).update(path, 'utf8').digest('base64url');
}
