import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../domain/directory/sandbox-config.ts';

/** The files options name that are read when the configuration is loaded: the --auth-file's users and the SMTP certificate and key. */

/** A user of the --auth-file. */
export interface AuthUser {
  readonly user: string;
  readonly hash: string;
}

const BCRYPT_HASH = /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

/** `user:hash` lines (bcrypt, as `pigeonhole hash-password` or `htpasswd -nB` write them); blank lines and `#` comments are skipped. */
function parseAuthFile(text: string, file: string): AuthUser[] {
  const users: AuthUser[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const colon = line.indexOf(':');
    const user = colon > 0 ? line.slice(0, colon) : '';
    const hash = colon > 0 ? line.slice(colon + 1).trim() : '';
    if (user === '') problems.push(`  line ${index + 1}: expected user:hash`);
    else if (!BCRYPT_HASH.test(hash))
      problems.push(`  line ${index + 1}: the hash of "${user}" is not a bcrypt hash ($2b$10$... ; make one with "pigeonhole hash-password ${user}")`);
    else if (users.some((u) => u.user === user)) problems.push(`  line ${index + 1}: "${user}" is listed twice`);
    else users.push({ user, hash });
  });
  if (problems.length === 0 && users.length === 0) problems.push('  no user:hash line in it');
  if (problems.length > 0) throw new ConfigError(`Invalid auth file ${file}:\n${problems.join('\n')}`);
  return users;
}

/** The --auth-file's users. */
export function readAuthFile(file: string): AuthUser[] {
  return parseAuthFile(readText(file, '--auth-file'), file);
}

/** The certificate and key files, checked to be PEM and to belong together. */
export function readTlsFiles(certFile: string, keyFile: string): { cert: string; key: string } {
  const cert = readText(certFile, '--smtp-tls-cert');
  const key = readText(keyFile, '--smtp-tls-key');
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new ConfigError(`--smtp-tls-cert: ${certFile} is not a PEM certificate`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError(`--smtp-tls-key: ${keyFile} is not a PEM private key (an encrypted key is not supported)`);
  }
  if (!x509.checkPrivateKey(privateKey)) throw new ConfigError(`--smtp-tls-key: ${keyFile} is not the private key of the certificate ${certFile}`);
  return { cert, key };
}

function readText(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}
