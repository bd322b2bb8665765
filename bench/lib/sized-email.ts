import { readFileSync } from 'node:fs';

/**
 * An email of about `bytes` bytes built from fixtures/emails/gmail-clipped-newsletter.html: its
 * head, as many of its product rows as fit, its footer (bench/check.ts and bench/render.ts).
 */
export function emailOf(bytes: number): string {
  const source = readFileSync(new URL('../../fixtures/emails/gmail-clipped-newsletter.html', import.meta.url), 'utf8');
  const first = source.indexOf('<tr><td style="padding:12px 24px;border-top');
  const footer = source.lastIndexOf('<tr><td style="padding:24px;font-family:Arial');
  const rows = source.slice(first, footer).split(/(?=<tr><td style="padding:12px 24px;border-top)/);
  let out = source.slice(0, first);
  const tail = source.slice(footer);
  for (const row of rows) {
    if (Buffer.byteLength(out + row + tail) > bytes) break;
    out += row;
  }
  return out + tail;
}
