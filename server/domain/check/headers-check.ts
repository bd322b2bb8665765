import { isValidEmail } from '../email-address.ts';
import type { HeaderField } from '../mail/headers.ts';
import { replaceGroups } from './groups.ts';

type HeaderStatus = 'ok' | 'warning' | 'error';

interface HeaderFinding {
  header: string;
  status: HeaderStatus;
  /** The value as the message has it, or null when it is missing. */
  value: string | null;
  message: string;
}

export interface HeadersReport {
  /** The message looks like bulk mail (Precedence bulk/list, List-Id or List-Unsubscribe). */
  bulk: boolean;
  findings: HeaderFinding[];
}

const DATE =
  /^(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),\s*)?\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{4}\s+\d{2}:\d{2}(?::\d{2})?\s+(?:[+-]\d{4}|UT|GMT|[ECMP][SD]T|[A-IK-Z])(?:\s*\(.*\))?$/i;
const MESSAGE_ID = /^<[^<>@\s]+@[^<>@\s]+>$/;

/**
 * Date, Message-ID and From well formed; List-Unsubscribe and its RFC 8058 one-click
 * companion where the message has them, or should (bulk mail that came over SMTP).
 */
export function headersReport(fields: readonly HeaderField[], options: { source: string }): HeadersReport {
  const get = (name: string) => fields.filter((f) => f.name.toLowerCase() === name.toLowerCase()).map((f) => f.value);
  const findings: HeaderFinding[] = [];
  const one = (header: string, check: (value: string) => string | null) => {
    const values = get(header);
    if (values.length === 0) findings.push({ header, status: 'error', value: null, message: `${header} is missing (RFC 5322 requires it).` });
    else if (values.length > 1)
      findings.push({ header, status: 'error', value: values.join(' | '), message: `${header} appears ${values.length} times; it must appear once.` });
    else {
      const problem = check(values[0]!);
      findings.push({ header, status: problem ? 'error' : 'ok', value: values[0]!, message: problem ?? `${header} is well formed.` });
    }
  };
  one('Date', (v) =>
    DATE.test(v.trim()) && !Number.isNaN(Date.parse(v.replace(/\s*\(.*\)$/, '')))
      ? null
      : 'Date is not an RFC 5322 date such as "Tue, 10 Mar 2026 09:00:00 +0000".',
  );
  one('Message-ID', (v) => (MESSAGE_ID.test(v.trim()) ? null : 'Message-ID must look like <unique@domain>.'));
  one('From', (v) => {
    const addresses = addressesOf(v);
    if (addresses.length === 0) return 'From has no address.';
    const bad = addresses.find((a) => !isValidEmail(a));
    return bad ? `From has an address that is not valid: "${bad}".` : null;
  });

  const precedence = get('Precedence')[0]?.toLowerCase() ?? '';
  const unsubscribe = get('List-Unsubscribe');
  const post = get('List-Unsubscribe-Post');
  const bulk = precedence === 'bulk' || precedence === 'list' || get('List-Id').length > 0 || unsubscribe.length > 0;
  if (unsubscribe.length > 0) {
    const uris = [...unsubscribe.join(',').matchAll(/<([^>]*)>/g)].map((m) => m[1]!.trim());
    const bad = uris.filter((u) => !/^(https:\/\/[^\s]+|mailto:[^\s]+|http:\/\/[^\s]+)$/i.test(u));
    const https = uris.some((u) => /^https:\/\//i.test(u));
    if (uris.length === 0)
      findings.push({
        header: 'List-Unsubscribe',
        status: 'error',
        value: unsubscribe.join(', '),
        message: 'List-Unsubscribe must list URIs in angle brackets: <https://...>, <mailto:...>.',
      });
    else if (bad.length > 0)
      findings.push({
        header: 'List-Unsubscribe',
        status: 'error',
        value: unsubscribe.join(', '),
        message: `List-Unsubscribe has a URI that is neither https:, http: nor mailto: "${bad[0]}".`,
      });
    else if (!https)
      findings.push({
        header: 'List-Unsubscribe',
        status: 'warning',
        value: unsubscribe.join(', '),
        message: 'List-Unsubscribe has no https: URI: one-click unsubscribe (RFC 8058) needs one.',
      });
    else findings.push({ header: 'List-Unsubscribe', status: 'ok', value: unsubscribe.join(', '), message: 'List-Unsubscribe is well formed.' });
    if (post.length === 0)
      findings.push({
        header: 'List-Unsubscribe-Post',
        status: 'warning',
        value: null,
        message: 'List-Unsubscribe-Post: List-Unsubscribe=One-Click is missing: Gmail and Yahoo ask bulk senders for one-click unsubscribe (RFC 8058).',
      });
    else if (post.length > 1 || post[0]!.trim() !== 'List-Unsubscribe=One-Click')
      findings.push({
        header: 'List-Unsubscribe-Post',
        status: 'error',
        value: post.join(' | '),
        message: 'List-Unsubscribe-Post must be exactly "List-Unsubscribe=One-Click" (RFC 8058).',
      });
    else if (!https)
      findings.push({
        header: 'List-Unsubscribe-Post',
        status: 'error',
        value: post[0]!,
        message: 'List-Unsubscribe-Post needs an https: URI in List-Unsubscribe (RFC 8058).',
      });
    else findings.push({ header: 'List-Unsubscribe-Post', status: 'ok', value: post[0]!, message: 'One-click unsubscribe (RFC 8058) is set up.' });
  } else if (post.length > 0) {
    findings.push({
      header: 'List-Unsubscribe-Post',
      status: 'error',
      value: post.join(' | '),
      message: 'List-Unsubscribe-Post without List-Unsubscribe does nothing (RFC 8058).',
    });
  } else if (bulk && options.source === 'smtp') {
    findings.push({
      header: 'List-Unsubscribe',
      status: 'warning',
      value: null,
      message:
        'This looks like bulk mail (Precedence or List-Id) but has no List-Unsubscribe: Gmail and Yahoo require one, with one-click (RFC 8058), from bulk senders.',
    });
  }
  return { bulk, findings };
}

/** The addresses of an address-list header: `Name <a@b>, c@d`. */
function addressesOf(value: string): string[] {
  // Comments and angle brackets found in one pass each (`/\([^)]*\)/g` searched to the end again
  // for every `(` left open: quadratic on a hostile header, issue 19).
  const withoutQuoted = replaceGroups(value.replace(/"(?:[^"\\]|\\.)*"/g, '""'), '(', ')', () => '');
  return withoutQuoted
    .split(',')
    .map((part) => (/<([^<>]*)>/.exec(part)?.[1] ?? part).trim())
    .filter(Boolean);
}
