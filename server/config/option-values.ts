import { statSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { parseNetwork } from '../domain/check/link-targets.ts';
import { ConfigError } from '../domain/directory/sandbox-config.ts';
import { parseDuration } from '../domain/time/duration.ts';

/**
 * How each option's value is read (option-table.ts names the parser of each): every parser
 * takes the raw text and where it came from (a flag, a variable or the default) and throws a
 * ConfigError that names that source.
 */

/** An SMTP server that releases go through (`--relay smtp://[user:pass@]host:port`). */
export interface RelayTarget {
  readonly host: string;
  readonly port: number;
  /** smtps://: TLS from the first byte; smtp://: STARTTLS when the server offers it. */
  readonly secure: boolean;
  readonly auth: { readonly user: string; readonly pass: string } | null;
}

export function port(value: string, source: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > 65535) throw new ConfigError(`${source}: "${value}" is not a port number (0-65535)`);
  return n;
}

export function positiveInt(value: string, source: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1 || !Number.isSafeInteger(n)) throw new ConfigError(`${source}: "${value}" is not a positive whole number`);
  return n;
}

export function atMost(n: number, most: number, source: string): number {
  if (n > most) throw new ConfigError(`${source}: ${n} is more than ${most}`);
  return n;
}

export function wholeNumber(value: string, source: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new ConfigError(`${source}: "${value}" is not a whole number (0 or more)`);
  return n;
}

/** A duration such as 10m or 90s, more than 0. */
export function duration(value: string, source: string): number {
  const ms = parseDuration(value.trim());
  if (ms === null || ms === 0) throw new ConfigError(`${source}: "${value}" is not a duration such as 10m, 90s or 1h`);
  return ms;
}

/** A duration such as 7d or 12h; 0 or empty turns the limit off. */
export function maxAge(value: string, source: string): number {
  if (value.trim() === '' || value.trim() === '0') return 0;
  const ms = parseDuration(value);
  if (ms === null || ms === 0) throw new ConfigError(`${source}: "${value}" is not a duration such as 7d, 12h or 1d12h (0 to keep captures of any age)`);
  return ms;
}

/** `HOST:PORT` (`[::1]:783` for IPv6); empty turns the feature off. */
export function hostPort(value: string, source: string): { host: string; port: number } | null {
  const text = value.trim();
  if (text === '') return null;
  const match = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d+)$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535) throw new ConfigError(`${source}: "${value}" is not HOST:PORT, e.g. 127.0.0.1:783`);
  return { host: match[1] ?? match[2]!, port };
}

export function bool(value: string, source: string): boolean {
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off', ''].includes(v)) return false;
  throw new ConfigError(`${source}: "${value}" is not true or false`);
}

/** A comma-separated list of host names (`.example.com`: it and its subdomains; `*`: any). */
export function hostList(value: string, source: string): string[] {
  const hosts = list(value);
  for (const host of hosts) {
    const name = host.startsWith('.') ? host.slice(1) : host;
    if (host === '*' || isIP(name) !== 0 || /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(name)) continue;
    const port = /^(.+):\d+$/.exec(host);
    throw new ConfigError(
      port
        ? `${source}: "${host}": give the name without a port (every port is allowed): ${port[1]}`
        : `${source}: "${host}" is not a host name (such as mail.example.com, .example.com for it and its subdomains, or *)`,
    );
  }
  return hosts;
}

/** A comma-separated list of origins, `scheme://host[:port]` (a trailing slash is dropped), or `*`. */
export function originList(value: string, source: string): string[] {
  return list(value).map((origin) => {
    if (origin === '*') return origin;
    const trimmed = origin.replace(/\/$/, '');
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+$/.test(trimmed)) return trimmed;
    throw new ConfigError(`${source}: "${origin}" is not an origin such as http://localhost:3000 or https://app.example.com (scheme and host, no path), or *`);
  });
}

/** A comma-separated list of IP networks (`10.0.0.0/8`, `fd00::/8`) or addresses. */
export function networkList(value: string, source: string): string[] {
  const networks = list(value);
  for (const network of networks)
    if (parseNetwork(network) === null)
      throw new ConfigError(`${source}: "${network}" is not an IP address or network such as 10.1.0.0/16, fd00::/8 or 10.1.2.3`);
  return networks;
}

function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '');
}

/** USER:PASSWORD (the password may contain colons); empty turns the login off. */
export function userPassword(value: string, source: string): { user: string; password: string } | null {
  if (value === '') return null;
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) throw new ConfigError(`${source}: expected USER:PASSWORD, both not empty`);
  return { user: value.slice(0, colon), password: value.slice(colon + 1) };
}

/** An existing folder; empty: none. */
export function templateFolder(value: string, source: string): string | null {
  const folder = optionalPath(value);
  if (folder !== null && !statSync(folder, { throwIfNoEntry: false })?.isDirectory()) throw new ConfigError(`${source}: ${folder} is not a folder`);
  return folder;
}

/** `smtp://[user:pass@]host[:port]` (STARTTLS when offered; port 25 by default) or `smtps://` (TLS, 465); empty: no relay. */
export function relayUrl(value: string, source: string): RelayTarget | null {
  const text = value.trim();
  if (text === '') return null;
  const problem = new ConfigError(`${source}: "${text.replace(/\/\/[^@/]*@/, '//…@')}" is not smtp://[user:pass@]host:port or smtps://[user:pass@]host:port`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw problem;
  }
  if ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '' || (url.pathname !== '' && url.pathname !== '/') || url.search || url.hash)
    throw problem;
  const secure = url.protocol === 'smtps:';
  const user = decodeURIComponent(url.username);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (secure ? 465 : 25) : Number(url.port),
    secure,
    auth: user === '' ? null : { user, pass: decodeURIComponent(url.password) },
  };
}

/** Comma-separated recipient globs (`*` any run of characters, `?` one; any case): each an address pattern with an @. */
export function patternList(value: string, source: string): string[] {
  const patterns = list(value);
  for (const pattern of patterns)
    if (!pattern.includes('@') || pattern.length > 254)
      throw new ConfigError(`${source}: "${pattern}" is not a recipient pattern such as *@example.com or qa+*@example.org`);
  return patterns;
}

export function optionalPath(value: string): string | null {
  return value.trim() === '' ? null : path.resolve(value.trim());
}

export function certificate(value: string): string | null {
  return value.trim() === 'auto' ? 'auto' : optionalPath(value);
}

export function nonEmpty(value: string, source: string): string {
  if (value.trim() === '') throw new ConfigError(`${source}: may not be empty`);
  return value.trim();
}
