import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import { promisify } from 'node:util';

const derive = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;
const PREFIX = 'enc:v1:';
const SCRYPT = { N: 1 << 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/**
 * Encryption-Key (docs/api-contract.md §3, sandbox decision): the record body is sealed with
 * AES-256-GCM under a key derived by scrypt from the header value and a random salt. Only the
 * sealed text is stored; the header value never is.
 * Format: enc:v1:base64(salt[16] | iv[12] | tag[16] | ciphertext).
 */
export async function seal(plaintext: string, secret: string): Promise<string> {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const key = await derive(secret, salt, 32, SCRYPT);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([salt, iv, cipher.getAuthTag(), body]).toString('base64');
}

/** The clear text, or null when the secret is not the one it was sealed with. */
export async function unseal(sealed: string, secret: string): Promise<string | null> {
  if (!sealed.startsWith(PREFIX)) return null;
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
  if (raw.length < 44) return null;
  const key = await derive(secret, raw.subarray(0, 16), 32, SCRYPT);
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(16, 28));
  decipher.setAuthTag(raw.subarray(28, 44));
  try {
    return Buffer.concat([decipher.update(raw.subarray(44)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
