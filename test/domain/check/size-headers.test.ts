import { describe, expect, it } from 'vitest';
import { headersReport } from '../../../server/domain/check/headers-check.ts';
import { GMAIL_CLIP_BYTES, sizeReport } from '../../../server/domain/check/size.ts';
import { checkHtml, fixture } from './fixtures.ts';

const MB = 1024 * 1024;

describe('size', () => {
  it('tells a newsletter over 102 KB of HTML is clipped by Gmail, and a receipt is not', () => {
    const newsletter = fixture('gmail-clipped-newsletter.html');
    const size = checkHtml(newsletter).size;
    expect(size.html_bytes).toBe(Buffer.byteLength(newsletter));
    expect(size.gmail_clip_bytes).toBe(102 * 1024);
    expect(size.gmail_clipped).toBe(true);
    expect(checkHtml(fixture('table-receipt.html')).size.gmail_clipped).toBe(false);
    // The limit is on bytes, not characters: é is two.
    const edge = 'é'.repeat(GMAIL_CLIP_BYTES / 2);
    expect(checkHtml(edge).size.gmail_clipped).toBe(false);
    expect(checkHtml(`${edge}a`).size.gmail_clipped).toBe(true);
  });

  it("holds the attachments, base64-encoded, against each provider's limit", () => {
    const size = sizeReport({ html: '<p>x</p>', text: null, messageBytes: null, attachmentSizes: [10 * MB, 6 * MB] });
    expect(size.attachments.count).toBe(2);
    expect(size.attachments.bytes).toBe(16 * MB);
    expect(size.attachments.encoded_bytes).toBeGreaterThan(16 * MB * 1.33);
    const over = Object.fromEntries(size.attachments.limits.map((l) => [l.provider, l.over]));
    expect(over).toEqual({ Gmail: false, 'Yahoo Mail': false, 'Outlook.com': true, 'iCloud Mail': true, 'Microsoft 365 (default)': false });
    expect(size.message_bytes).toBe(8 + size.attachments.encoded_bytes);
    expect(sizeReport({ html: null, text: 'x', messageBytes: 1234, attachmentSizes: [] }).message_bytes).toBe(1234);
  });
});

const field = (name: string, value: string) => ({ name, value });
const good = [field('Date', 'Tue, 10 Mar 2026 09:00:00 +0000'), field('Message-ID', '<abc.1@mail.acme.example>'), field('From', 'Acme <hello@acme.example>')];
const status = (report: ReturnType<typeof headersReport>) => Object.fromEntries(report.findings.map((f) => [f.header, f.status]));

describe('headers', () => {
  it('finds Date, Message-ID and From well formed, and nothing about unsubscribing in a transactional send', () => {
    const report = headersReport(good, { source: 'api' });
    expect(report).toEqual({ bulk: false, findings: expect.any(Array) });
    expect(status(report)).toEqual({ Date: 'ok', 'Message-ID': 'ok', From: 'ok' });
  });

  it('names what is missing or malformed', () => {
    const report = headersReport([field('Date', 'yesterday'), field('From', 'Acme <not an address>'), field('From', 'b@c.example')], { source: 'smtp' });
    expect(report.findings.map((f) => [f.header, f.status, f.message])).toEqual([
      ['Date', 'error', 'Date is not an RFC 5322 date such as "Tue, 10 Mar 2026 09:00:00 +0000".'],
      ['Message-ID', 'error', 'Message-ID is missing (RFC 5322 requires it).'],
      ['From', 'error', 'From appears 2 times; it must appear once.'],
    ]);
    expect(
      status(
        headersReport([field('Date', 'Tue, 10 Mar 2026 09:00:00 +0000'), field('Message-ID', 'abc@x'), field('From', '"Doe, Jane" <jane@x.example>')], {
          source: 'smtp',
        }),
      ),
    ).toMatchObject({ 'Message-ID': 'error', From: 'ok' });
  });

  it('accepts RFC 8058 one-click unsubscribe and refuses it half done', () => {
    const oneClick = headersReport(
      [
        ...good,
        field('List-Unsubscribe', '<https://acme.example/u/42>, <mailto:unsubscribe@acme.example?subject=42>'),
        field('List-Unsubscribe-Post', 'List-Unsubscribe=One-Click'),
      ],
      { source: 'smtp' },
    );
    expect(oneClick.bulk).toBe(true);
    expect(status(oneClick)).toMatchObject({ 'List-Unsubscribe': 'ok', 'List-Unsubscribe-Post': 'ok' });
    const noPost = headersReport([...good, field('List-Unsubscribe', '<https://acme.example/u/42>')], { source: 'api' });
    expect(status(noPost)).toMatchObject({ 'List-Unsubscribe': 'ok', 'List-Unsubscribe-Post': 'warning' });
    const mailtoOnly = headersReport(
      [...good, field('List-Unsubscribe', '<mailto:u@acme.example>'), field('List-Unsubscribe-Post', 'List-Unsubscribe=One-Click')],
      { source: 'smtp' },
    );
    expect(status(mailtoOnly)).toMatchObject({ 'List-Unsubscribe': 'warning', 'List-Unsubscribe-Post': 'error' });
    const wrongPost = headersReport([...good, field('List-Unsubscribe', '<https://acme.example/u>'), field('List-Unsubscribe-Post', 'One-Click')], {
      source: 'smtp',
    });
    expect(wrongPost.findings.find((f) => f.header === 'List-Unsubscribe-Post')!.message).toBe(
      'List-Unsubscribe-Post must be exactly "List-Unsubscribe=One-Click" (RFC 8058).',
    );
    const bare = headersReport([...good, field('List-Unsubscribe', 'https://acme.example/u')], { source: 'smtp' });
    expect(status(bare)).toMatchObject({ 'List-Unsubscribe': 'error' });
  });

  it('expects List-Unsubscribe from bulk mail sent over SMTP', () => {
    const bulk = headersReport([...good, field('Precedence', 'bulk')], { source: 'smtp' });
    expect(bulk.bulk).toBe(true);
    expect(bulk.findings.find((f) => f.header === 'List-Unsubscribe')).toMatchObject({ status: 'warning', value: null });
    expect(headersReport([...good, field('List-Id', '<weekly.acme.example>')], { source: 'smtp' }).findings.some((f) => f.header === 'List-Unsubscribe')).toBe(
      true,
    );
    expect(headersReport(good, { source: 'smtp' }).findings.some((f) => f.header === 'List-Unsubscribe')).toBe(false);
  });
});
