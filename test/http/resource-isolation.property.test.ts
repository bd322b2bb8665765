import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { browserPolicy, checkBrowserRequest } from '../../server/http/browser-guard.ts';

/**
 * The resource isolation decision of issue 19 over every combination a page can make: any
 * path, read method, Sec-Fetch-Mode and Sec-Fetch-Dest. A read marked cross-site without an
 * allowed Origin is refused unless it is a link to the inbox or its login, /v1 or a health
 * probe; every other Sec-Fetch-Site (or none) is served.
 */
const policy = browserPolicy();
const segment = fc.constantFrom('api', 'messages', 'wait', 'latest', 'v1', 'v1x', 'mcp', 'metrics', 'auth', 'login', 'assets', 'livez', 'readyz', '', 'x');
const path = fc.array(segment, { minLength: 0, maxLength: 4 }).map((parts) => `/${parts.join('/')}`);
const mode = fc.constantFrom('navigate', 'no-cors', 'cors', 'same-origin', 'websocket', undefined, 'NAVIGATE');
const dest = fc.constantFrom('document', 'iframe', 'image', 'empty', 'script', 'style', 'frame', 'object', undefined, 'Document');
const method = fc.constantFrom('GET', 'HEAD', 'OPTIONS');

function exempt(p: string, m: string | undefined, d: string | undefined, verb: string): boolean {
  if (p === '/v1' || p.startsWith('/v1/') || p === '/livez' || p === '/readyz') return true;
  return m?.toLowerCase() === 'navigate' && d?.toLowerCase() === 'document' && verb !== 'OPTIONS' && (p === '/' || p === '/auth/login');
}

describe('resource isolation (property)', () => {
  it('refuses every cross-site read without an Origin but a link to the inbox, /v1 and the probes', () => {
    fc.assert(
      fc.property(path, mode, dest, method, (p, m, d, verb) => {
        const refusal = checkBrowserRequest(
          { method: verb, host: '127.0.0.1:8025', secFetchSite: 'cross-site', secFetchMode: m, secFetchDest: d, path: p },
          policy,
        );
        expect(refusal === null).toBe(exempt(p, m, d, verb));
        if (refusal) expect(refusal.header).toBe('Sec-Fetch-Site');
      }),
      { numRuns: 2000 },
    );
  });

  it('serves every read that is not cross-site, and a cross-site one from an allowed Origin', () => {
    fc.assert(
      fc.property(path, mode, dest, method, fc.constantFrom('same-origin', 'same-site', 'none', undefined), (p, m, d, verb, site) => {
        expect(checkBrowserRequest({ method: verb, host: '127.0.0.1:8025', secFetchSite: site, secFetchMode: m, secFetchDest: d, path: p }, policy)).toBeNull();
        const allowed = {
          method: verb,
          host: '127.0.0.1:8025',
          origin: 'http://localhost:3000',
          secFetchSite: 'cross-site',
          secFetchMode: m,
          secFetchDest: d,
          path: p,
        };
        expect(checkBrowserRequest(allowed, policy)).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });
});
