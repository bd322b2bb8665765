import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';

// The real service validates with Django's EmailValidator; these are its rules, so an address
// the service would refuse is refused here too (docs/api-contract.md §1, "Enter a valid email address.").
// biome-ignore lint/suspicious/noControlCharactersInRegex: Django's quoted local part admits these control characters, so the copy of its rule does too.
const USER = /^[-!#$%&'*+/=?^_`{}|~0-9A-Z]+(\.[-!#$%&'*+/=?^_`{}|~0-9A-Z]+)*$|^"([\x01-\x08\x0b\x0c\x0e-\x1f!#-[\]-\x7f]|\\[\x01-\x09\x0b\x0c\x0e-\x7f])*"$/i;
const DOMAIN = /^(?:[A-Z0-9](?:[A-Z0-9-]{0,61}[A-Z0-9])?\.)+(?:[A-Z0-9-]{2,63})$/i;
const LITERAL = /^\[([A-F0-9:.]+)\]$/i;
const MAX_LENGTH = 320;

export function isValidEmail(value: string): boolean {
  if (value.length === 0 || value.length > MAX_LENGTH) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0 || at === value.length - 1) return false;
  const user = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!USER.test(user)) return false;
  if (domain === 'localhost') return true;
  if (validDomain(domain)) return true;
  const ascii = domainToASCII(domain);
  return ascii !== '' && ascii !== domain && validDomain(ascii);
}

function validDomain(domain: string): boolean {
  if (DOMAIN.test(domain) && !domain.endsWith('-')) return true;
  const literal = LITERAL.exec(domain);
  if (!literal) return false;
  const address = literal[1]!;
  return isIP(address.replace(/^ipv6:/i, '')) !== 0;
}

/** The key an address is matched by: addresses compare case-insensitively. */
export function emailKey(address: string): string {
  return address.trim().toLowerCase();
}
