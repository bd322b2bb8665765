import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { ScannedHtml } from './html-scan.ts';
import { ANY_TARGET, type LinkTargetPolicy } from './link-targets.ts';

export interface LinkTarget {
  url: string;
  kind: 'link' | 'image';
  /** Lines of the HTML where it appears. */
  lines: number[];
}

export interface LinkResult extends LinkTarget {
  /** The final answer's status; null when there was none (timeout, refused, bad redirect). */
  status: number | null;
  ok: boolean;
  final_url: string;
  redirects: number;
  /** HEAD, or GET when the server refused HEAD. */
  method: 'HEAD' | 'GET';
  time_ms: number;
  error: string | null;
}

export interface LinkCheckOptions {
  /** Per link, redirects included. */
  timeoutMs?: number;
  concurrency?: number;
  maxRedirects?: number;
  /** Which addresses may be reached (default any); each hop of a redirect is judged too. */
  policy?: LinkTargetPolicy;
}

export const LINK_DEFAULTS = { timeoutMs: 10_000, concurrency: 5, maxRedirects: 5 } as const;

/** Every absolute http(s) link and image of the HTML, once each; other schemes are never checked. */
export function linkTargets(scan: ScannedHtml): { targets: LinkTarget[]; skipped: number } {
  const byUrl = new Map<string, LinkTarget>();
  let skipped = 0;
  const add = (raw: string | undefined, kind: LinkTarget['kind'], line: number) => {
    const url = raw?.trim();
    if (!url || url.startsWith('#')) return;
    if (!/^https?:\/\//i.test(url)) {
      skipped++;
      return;
    }
    let normal: string;
    try {
      normal = new URL(url).href;
    } catch {
      skipped++;
      return;
    }
    const known = byUrl.get(normal);
    if (known) {
      // Elements come in document order, so a line already there is the last one (a search
      // of the whole list per occurrence was quadratic in the anchors to one URL, issue 19).
      if (known.lines[known.lines.length - 1] !== line) known.lines.push(line);
    } else byUrl.set(normal, { url: normal, kind, lines: [line] });
  };
  for (const e of scan.elements) {
    if ((e.name === 'a' || e.name === 'area') && e.attribs.href !== undefined) add(e.attribs.href, 'link', e.line);
    if (e.name === 'img') add(e.attribs.src, 'image', e.line);
    if (e.attribs.background !== undefined) add(e.attribs.background, 'image', e.line);
  }
  return { targets: [...byUrl.values()], skipped };
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);
const HEAD_REFUSED = new Set([405, 501]);

/** One link: HEAD (GET when HEAD is refused), following up to `maxRedirects` redirects by hand. */
export async function checkLink(target: LinkTarget, options: LinkCheckOptions = {}): Promise<LinkResult> {
  const { timeoutMs, maxRedirects, policy = ANY_TARGET } = { ...LINK_DEFAULTS, ...options };
  const started = performance.now();
  const signal = AbortSignal.timeout(timeoutMs);
  let url = target.url;
  let method: 'HEAD' | 'GET' = 'HEAD';
  let redirects = 0;
  const done = (status: number | null, error: string | null): LinkResult => ({
    ...target,
    status,
    ok: error === null && status !== null && status < 400,
    final_url: url,
    redirects,
    method,
    time_ms: Math.round(performance.now() - started),
    error,
  });
  try {
    for (;;) {
      let response = await ask(new URL(url), method, signal, policy);
      if (method === 'HEAD' && HEAD_REFUSED.has(response.status)) {
        method = 'GET';
        response = await ask(new URL(url), method, signal, policy);
      }
      const { location } = response;
      if (!REDIRECT.has(response.status) || location === null) return done(response.status, null);
      if (redirects >= maxRedirects) return done(response.status, `More than ${maxRedirects} redirects.`);
      const next = new URL(location, url);
      redirects++;
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        url = next.href;
        return done(response.status, `Redirects to a ${next.protocol} URL, which is not followed.`);
      }
      url = next.href;
      if (response.status === 303) method = 'GET';
    }
  } catch (error) {
    if (error instanceof TargetRefused) return done(null, `Not requested: ${error.message}. ${policy.note}`);
    if (signal.aborted) return done(null, `No answer within ${timeoutMs / 1000} s.`);
    const e = error as NodeJS.ErrnoException;
    return done(null, e.code ?? e.message);
  }
}

/** An address the policy refuses: nothing was sent to it. */
class TargetRefused extends Error {}

/**
 * One request, its status and Location. The host name is resolved once, every address judged by
 * the policy, and the connection made to an address that passed (the URL's name stays the Host
 * header and the TLS server name): a name that answers differently the second time (DNS
 * rebinding) cannot slip past the check.
 */
function ask(url: URL, method: 'HEAD' | 'GET', signal: AbortSignal, policy: LinkTargetPolicy): Promise<{ status: number; location: string | null }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    const kind = policy.refused(host);
    if (kind !== null) return Promise.reject(new TargetRefused(`${host} is ${kind}`));
  }
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      { method, signal, agent: false, lookup: guardedLookup(policy), headers: { 'User-Agent': 'Pigeonhole link check' } },
      (response) => {
        resolve({ status: response.statusCode ?? 0, location: response.headers.location ?? null });
        // Only the status matters: the body is never read.
        response.destroy();
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** A DNS lookup that answers only with the addresses the policy lets the link check reach. */
function guardedLookup(policy: LinkTargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const allowed = addresses.filter((a) => policy.refused(a.address) === null);
      if (allowed.length === 0) {
        const first = addresses[0]!;
        return callback(new TargetRefused(`${hostname} resolves to ${first.address}, ${policy.refused(first.address)}`), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

/** Checks every target, `concurrency` at a time; yields each result as soon as it is known. */
export async function* checkLinks(targets: readonly LinkTarget[], options: LinkCheckOptions = {}): AsyncGenerator<LinkResult> {
  const { concurrency } = { ...LINK_DEFAULTS, ...options };
  const running = new Map<number, Promise<[number, LinkResult]>>();
  let next = 0;
  const start = () => {
    const index = next++;
    running.set(
      index,
      checkLink(targets[index]!, options).then((result) => [index, result]),
    );
  };
  while (next < targets.length && running.size < concurrency) start();
  while (running.size > 0) {
    const [index, result] = await Promise.race(running.values());
    running.delete(index);
    if (next < targets.length) start();
    yield result;
  }
}
