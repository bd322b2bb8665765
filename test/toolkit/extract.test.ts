import { describe, expect, it } from 'vitest';
import { extract, findCodes } from '../../server/domain/extract.ts';

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
    expect(extract('<a href="https://a.example">unclosed <p>code 1234', null)).toEqual({ links: [], codes: ['1234'] });
  });
});
