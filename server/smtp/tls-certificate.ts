import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';

/** A certificate and its key (PEM) for SMTP TLS. */
export interface TlsCertificate {
  cert: string;
  key: string;
  /** Where the certificate is kept (`--smtp-tls-cert auto`), for clients to trust. */
  file: string;
  /** SHA-256 fingerprint, as `openssl x509 -fingerprint -sha256` prints it. */
  fingerprint: string;
  /** Whether it was made at this start (false: the kept one was still good). */
  created: boolean;
}

/** Apple's platforms refuse server certificates valid for longer, even trusted by hand. */
const VALID_DAYS = 825;
/** A kept certificate closer than this to its end is replaced at start. */
const RENEW_BEFORE_DAYS = 30;
const DAY_MS = 86_400_000;

/**
 * The names the automatic certificate is made for: localhost and the loopback addresses, the
 * `--host` when it names one address, and the `--allowed-hosts` (`.example.com` as
 * `example.com` and `*.example.com`).
 */
export function certificateNames(listenHost: string, allowedHosts: readonly string[]): string[] {
  const names = new Set(['localhost', '127.0.0.1', '::1']);
  if (listenHost !== '0.0.0.0' && listenHost !== '::') names.add(listenHost.toLowerCase());
  for (const host of allowedHosts) {
    if (host === '*') continue;
    if (host.startsWith('.')) names.add(host.slice(1)).add(`*${host}`);
    else names.add(host);
  }
  return [...names];
}

/**
 * `--smtp-tls-cert auto`: the self-signed certificate kept in `<data-dir>/tls/` (cert.pem,
 * key.pem), made at the first start and again only when it no longer covers the names or is
 * within 30 days of its end, so a client told to trust it keeps trusting it across restarts.
 */
export async function autoCertificate(dataDir: string, names: readonly string[], now = new Date()): Promise<TlsCertificate> {
  const dir = path.join(dataDir, 'tls');
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  const kept = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]).catch(() => null);
  if (kept && stillGood(kept[0], kept[1], names, now)) {
    return { cert: kept[0], key: kept[1], file: certFile, fingerprint: new X509Certificate(kept[0]).fingerprint256, created: false };
  }
  const { generate } = await import('selfsigned');
  const made = await generate([{ name: 'commonName', value: 'Pigeonhole SMTP (self-signed)' }], {
    keyType: 'rsa',
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - DAY_MS),
    notAfterDate: new Date(now.getTime() + VALID_DAYS * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: names.map((name) => (isIP(name) !== 0 ? { type: 7 as const, ip: name } : { type: 2 as const, value: name })) },
    ],
  });
  await mkdir(dir, { recursive: true });
  // Key first, then the certificate, each replaced whole: a crash leaves an old pair or a
  // mismatched one, which the next start notices and replaces.
  await writeAtomically(keyFile, made.private, 0o600);
  await writeAtomically(certFile, made.cert, 0o644);
  return { cert: made.cert, key: made.private, file: certFile, fingerprint: new X509Certificate(made.cert).fingerprint256, created: true };
}

function stillGood(cert: string, key: string, names: readonly string[], now: Date): boolean {
  try {
    const x509 = new X509Certificate(cert);
    if (!x509.checkPrivateKey(createPrivateKey(key))) return false;
    if (new Date(x509.validTo).getTime() - now.getTime() < RENEW_BEFORE_DAYS * DAY_MS) return false;
    return names.every((name) => (isIP(name) !== 0 ? x509.checkIP(name) !== undefined : x509.checkHost(name.replace(/^\*\./, 'any.')) !== undefined));
  } catch {
    return false;
  }
}

async function writeAtomically(file: string, text: string, mode: number): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, text, { mode });
  await rename(temp, file);
}
