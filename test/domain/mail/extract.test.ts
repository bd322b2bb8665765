import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { extract, findCodes } from '../../../server/domain/mail/extract.ts';

describe('one-time codes', () => {
  const cases: [string, string[]][] = [
    ['Your verification code is 482913.', ['482913']],
    ['482913 is your Acme verification code', ['482913']],
    ['Use code 4821 to sign in. It expires in 10 minutes.', ['4821']],
    ['Your one-time passcode: A1B2C3', ['A1B2C3']],
    ['OTP 12345678', ['12345678']],
    ['Your PIN is 2019', ['2019']],
    ['Your code: 123 456', ['123456']],
    ['Your code: 123-456', ['123456']],
    ['Enter this code:\n\n  739201  \n\nThanks', ['739201']],
    ['Code:583920', ['583920']],
    // Not codes: amounts, years, order numbers, ids in URLs, percentages, words without digits.
    ['Your order confirmation #123456 total $1234.00', []],
    ['Verify your email by 12 March 2026 to keep the code', []],
    ['Verification: https://app.example/verify/987654?code=112233', []],
    ['Promo code gives 2000% more', []],
    ['Your code expires on 2026-03-12', []],
    ['Use the code in the app. © 2026 Acme Inc.', []],
    ['Your code is ready: HELLO', []],
    ['We sent 12345678 emails today.', []],
    ['Security update 1,500 users', []],
    ['Total €1234,56 code', []],
    ['Your code: abc123', []],
  ];
  it.each(cases)('%j → %j', (text, codes) => {
    expect(findCodes(text)).toEqual(codes);
  });

  it('reads codes from the visible HTML only (not attributes, styles, scripts or comments)', () => {
    const html = `<html><head><style>.c{width:123456px}</style><title>Code 999999</title></head><body>
      <!-- code 111111 --><script>var code = 222222;</script>
      <h1>Your verification code</h1><div class="code" data-id="333333"><span>48</span><span>2913</span></div>
      <table><tr><td>Your PIN</td></tr><tr><td style="font-size:24px">&nbsp;7391&nbsp;</td></tr></table></body></html>`;
    expect(extract(html, null).codes).toEqual(['482913', '7391']);
    expect(extract('<h2>Your code</h2><p>551234</p>', 'Your code is 551234').codes).toEqual(['551234']);
  });
});

describe('links', () => {
  it('lists anchors with decoded hrefs and text, then bare URLs of the text part, without duplicates', () => {
    const html = `<p><a href="https://app.example/verify?token=abc&amp;u=1" class="btn"><b>Verify</b>
      email</a> <a href='https://app.example/help'>Help</a> <a href=https://x.example/raw>Raw</a>
      <a href="#top">Top</a> <a name="anchor">no href</a> <a href="mailto:help@app.example">Write</a></p>`;
    const text = 'Verify: https://app.example/verify?token=abc&u=1 (or https://app.example/other).';
    expect(extract(html, text).links).toEqual([
      { href: 'https://app.example/verify?token=abc&u=1', text: 'Verify email' },
      { href: 'https://app.example/help', text: 'Help' },
      { href: 'https://x.example/raw', text: 'Raw' },
      { href: 'mailto:help@app.example', text: 'Write' },
      { href: 'https://app.example/other', text: 'https://app.example/other' },
    ]);
  });

  it('copes with no bodies and with broken HTML', () => {
    expect(extract(null, null)).toEqual({ links: [], codes: [] });
    // An anchor that is never closed runs to the end of the document, as a browser renders it.
    expect(extract('<a href="https://a.example">unclosed <p>code 1234', null)).toEqual({
      links: [{ href: 'https://a.example', text: 'unclosed code 1234' }],
      codes: ['1234'],
    });
    expect(extract('<p>Your code is 9<b>1<i>2</b>3</i>4</p><a href="javascript:alert(1)">x</a><a href="">y</a>', '')).toEqual({ links: [], codes: ['91234'] });
  });
});

/**
 * Django 3.2's registration/password_reset_email.html rendered for user "ada" on "testserver":
 * the plain-text body Django's password-reset form sends.
 */
const DJANGO_RESET_BODY = readFileSync(fileURLToPath(new URL('../../../fixtures/django-password-reset-body.txt', import.meta.url)), 'utf8');

describe('real-world shapes', () => {
  it("Django's plain-text reset mail posted into the HTML body field: the URL written as text is the link", () => {
    expect(extract(DJANGO_RESET_BODY, null)).toEqual({
      links: [
        {
          href: 'http://testserver/reset/MQ/c4x7yz-0a1b2c3d4e5f60718293a4b5c6d7e8f9/',
          text: 'http://testserver/reset/MQ/c4x7yz-0a1b2c3d4e5f60718293a4b5c6d7e8f9/',
        },
      ],
      codes: [],
    });
  });

  it('a text-only mail: URLs of the plain part, trailing punctuation left out', () => {
    const text =
      'Hi Ada,\n\nConfirm your address: https://app.example/confirm?u=7&t=Zx9 .\nOr open <https://app.example/alt>, (https://app.example/help).\nQuestions? Write to help@app.example.\n';
    expect(extract(null, text).links.map((l) => l.href)).toEqual([
      'https://app.example/confirm?u=7&t=Zx9',
      'https://app.example/alt',
      'https://app.example/help',
    ]);
  });

  it('an anchor whose text differs from its href keeps its text; the same href later is not repeated', () => {
    const html = `<p>Welcome! <a href="https://app.example/confirm?t=abc&amp;lang=en" style="color:#fff">Confirm your email</a></p>
      <p>Button not working? Paste https://app.example/confirm?t=abc&amp;lang=en into your browser.</p>`;
    expect(extract(html, null).links).toEqual([{ href: 'https://app.example/confirm?t=abc&lang=en', text: 'Confirm your email' }]);
  });

  it('a tracking-redirect link gives both where the click goes and the URL the reader sees; no code from the tracking URL or pixel', () => {
    const html = `<p>Your verification link is below.</p>
      <p><a href="https://click.tracker.example/ls/click?upn=482913-xyz&amp;u=https%3A%2F%2Fapp.example%2Freset%3Ft%3D42">https://app.example/reset?t=42</a></p>
      <img src="https://t.tracker.example/open/551234.gif" width="1" height="1" alt="">`;
    expect(extract(html, null)).toEqual({
      links: [
        { href: 'https://click.tracker.example/ls/click?upn=482913-xyz&u=https%3A%2F%2Fapp.example%2Freset%3Ft%3D42', text: 'https://app.example/reset?t=42' },
        { href: 'https://app.example/reset?t=42', text: 'https://app.example/reset?t=42' },
      ],
      codes: [],
    });
  });

  it('URLs written in the HTML text: entities decoded, www. forms, bare domains only with a path', () => {
    const html = `<p>Open https://app.example/a?x=1&amp;y=2. Or visit www.acme-shop.com, or acme-shop.com/help?q=reset!</p>
      <p>Acme.Inc sent report.zip; see example.org for nothing.</p>`;
    expect(extract(html, null).links).toEqual([
      { href: 'https://app.example/a?x=1&y=2', text: 'https://app.example/a?x=1&y=2' },
      { href: 'http://www.acme-shop.com', text: 'www.acme-shop.com' },
      { href: 'http://acme-shop.com/help?q=reset', text: 'acme-shop.com/help?q=reset' },
    ]);
  });

  it('hidden elements and image-only links', () => {
    const html = `<div style="display:none;max-height:0">Preheader https://hidden.example/x code 111111</div>
      <span hidden>222222</span><a href="https://app.example/logo"><img src="logo.png" alt="Acme home"></a>
      <p>Your code: <strong>123 456</strong></p>`;
    expect(extract(html, null)).toEqual({ links: [{ href: 'https://app.example/logo', text: 'Acme home' }], codes: ['123456'] });
  });

  const codeCases: [string, string, string[]][] = [
    ['a code split by a space', '<p>Your sign-in code is <b>123 456</b>.</p>', ['123456']],
    ['a code next to an order number', '<p>Your verification code is 482913. Order #100234 was placed.</p>', ['482913']],
    ['an order number without #', '<p>Use code 739201 to confirm order 5521873.</p>', ['739201']],
    ['a code next to a date', '<p>Your code 4821 expires on March 12, 2026 at 10:30.</p>', ['4821']],
    ['a code next to an ISO date', '<p>Confirmation code: 66120 (valid until 2026-04-01)</p>', ['66120']],
    [
      'a code in a table cell under its label',
      '<table><tr><td>Your PIN</td></tr><tr><td>&nbsp;7391&nbsp;</td></tr><tr><td>Invoice 20260312</td></tr></table>',
      ['7391'],
    ],
  ];
  it.each(codeCases)('%s', (_name, html, codes) => {
    expect(extract(html, null).codes).toEqual(codes);
  });
});
