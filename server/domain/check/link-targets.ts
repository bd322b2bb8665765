import { isIP } from 'node:net';

/**
 * Which addresses the link check may reach. On a laptop (the server listens on loopback) every
 * address, localhost included: a designer checks the links of a local app. On a shared box (it
 * listens on another address) a captured mail is anyone's input, and a link to 127.0.0.1, a
 * private network or 169.254.169.254 (cloud metadata) would make the sandbox a proxy into the
 * network it runs in (SSRF): those are refused, unless --link-check-private allows them or
 * --link-check-allow names the network.
 */
export interface LinkTargetPolicy {
  /** What kind of address this is when it may not be reached (`a loopback address`), or null when it may. */
  refused(address: string): string | null;
  /** The sentence that follows a refusal: why, and what lets it. */
  readonly note: string;
}

/** Every address may be reached (the server listens on loopback, or --link-check-private). */
export const ANY_TARGET: LinkTargetPolicy = Object.freeze({ refused: () => null, note: '' });

/** A network given as `10.0.0.0/8`, `fd00::/8` or one address. */
interface Network {
  bits: bigint;
  prefix: number;
  version: 4 | 6;
}

/**
 * The policy of a server listening on `listenHost`: any address on a loopback listener or with
 * `allowPrivate`; otherwise public addresses and the `allow` networks only.
 */
export function linkTargetPolicy(options: { listenHost: string; allowPrivate: boolean; allow?: readonly string[] }): LinkTargetPolicy {
  if (options.allowPrivate || isLoopbackHost(options.listenHost)) return ANY_TARGET;
  const allowed = (options.allow ?? []).map((network) => {
    const parsed = parseNetwork(network);
    if (parsed === null) throw new Error(`not a network: ${network}`);
    return parsed;
  });
  return Object.freeze({
    refused: (address: string) => (allowed.some((n) => inNetwork(address, n)) ? null : addressKind(address)),
    note: `Pigeonhole listens on ${options.listenHost}, so the link check reaches public addresses only (--link-check-private or --link-check-allow lets it reach others).`,
  });
}

/** Whether a --host value is a loopback address or localhost: then only this machine reaches the sandbox. */
export function isLoopbackHost(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return isIP(name) !== 0 && addressKind(name) === LOOPBACK;
}

/** `10.0.0.0/8`, `fd00::/8` or a single address; null when it is neither. */
export function parseNetwork(text: string): Network | null {
  const [address, prefixText, extra] = text.trim().split('/');
  if (address === undefined || extra !== undefined) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const width = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? width : Number(prefixText);
  if (prefix > width) return null;
  return { bits: toBits(address), prefix, version: version as 4 | 6 };
}

const LOOPBACK = 'a loopback address';
const PRIVATE = 'a private address';
const LINK_LOCAL = 'a link-local address';

/** IPv4 ranges that lead into the machine or its networks, with how a refusal names them. */
const IPV4_RANGES: [string, string][] = [
  ['0.0.0.0/8', 'an unspecified address (it reaches this machine)'],
  ['127.0.0.0/8', LOOPBACK],
  ['10.0.0.0/8', PRIVATE],
  ['172.16.0.0/12', PRIVATE],
  ['192.168.0.0/16', PRIVATE],
  ['169.254.0.0/16', `${LINK_LOCAL} (cloud metadata lives at 169.254.169.254)`],
  ['100.64.0.0/10', 'a shared address (carrier-grade NAT, some cloud metadata services)'],
  ['192.0.0.0/24', 'an IETF protocol address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved or broadcast address'],
];
const IPV6_RANGES: [string, string][] = [
  ['::/128', 'an unspecified address (it reaches this machine)'],
  ['::1/128', LOOPBACK],
  ['fc00::/7', `${PRIVATE} (unique local)`],
  ['fec0::/10', `${PRIVATE} (site-local)`],
  ['fe80::/10', LINK_LOCAL],
  ['ff00::/8', 'a multicast address'],
];
/** IPv6 prefixes whose last 32 bits are an IPv4 address that is what gets reached. */
const EMBEDDING_IPV4 = ['::ffff:0:0/96', '::/96', '64:ff9b::/96'].map((n) => parseNetwork(n)!);

const ranges = (list: [string, string][]) => list.map(([network, kind]) => ({ network: parseNetwork(network)!, kind }));
const V4 = ranges(IPV4_RANGES);
const V6 = ranges(IPV6_RANGES);

/**
 * What kind of non-public address this is (`a loopback address`, ...), or null for a public one.
 * IPv4-mapped, IPv4-compatible and NAT64 forms (`::ffff:127.0.0.1`, `64:ff9b::a9fe:a9fe`) are
 * judged by the IPv4 address they carry.
 */
export function addressKind(address: string): string | null {
  const version = isIP(address);
  if (version === 4) return V4.find((r) => inNetwork(address, r.network))?.kind ?? null;
  if (version !== 6) return 'not an IP address';
  const exact = V6.find((r) => r.network.prefix === 128 && inNetwork(address, r.network));
  if (exact) return exact.kind;
  const embedding = EMBEDDING_IPV4.find((n) => inNetwork(address, n));
  if (embedding) {
    const v4 = Number(toBits(address) & 0xffffffffn);
    return addressKind([v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255].join('.'));
  }
  return V6.find((r) => inNetwork(address, r.network))?.kind ?? null;
}

function inNetwork(address: string, network: Network): boolean {
  if (isIP(address) !== network.version) return false;
  const width = network.version === 4 ? 32 : 128;
  const shift = BigInt(width - network.prefix);
  return toBits(address) >> shift === network.bits >> shift;
}

/** An IP address (IPv4, or IPv6 with `::`, a dotted tail or a zone) as one number. */
function toBits(address: string): bigint {
  if (isIP(address) === 4) return address.split('.').reduce((bits, part) => (bits << 8n) | BigInt(Number(part)), 0n);
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = toBits(dotted[1]!);
    text = `${text.slice(0, -dotted[1]!.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((bits, group) => (bits << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}
