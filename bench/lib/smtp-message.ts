/**
 * The one message every SMTP benchmark sends, the same bytes every time: a multipart/alternative
 * mail with a plain-text part and a ~3 KB HTML part (issue 10, point 4), as an order
 * notification from a shop would look. CRLF line endings, no line over 998 characters, no line
 * starting with a dot (so it needs no dot-stuffing).
 */
const HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Your order has shipped</title>
<style>
  body { margin: 0; padding: 0; background: #f4f4f7; font-family: Helvetica, Arial, sans-serif; color: #33334d; }
  .wrapper { width: 100%; background: #f4f4f7; padding: 24px 0; }
  .card { max-width: 600px; margin: 0 auto; background: #ffffff; border-radius: 6px; }
  .button { display: inline-block; padding: 12px 24px; background: #3869d4; color: #ffffff; text-decoration: none; border-radius: 4px; }
</style>
</head>
<body>
<table class="wrapper" role="presentation" width="100%" cellpadding="0" cellspacing="0">
  <tr>
    <td align="center">
      <table class="card" role="presentation" width="600" cellpadding="0" cellspacing="0">
        <tr>
          <td style="padding: 32px 40px 8px 40px;">
            <img src="https://shop.example.com/static/logo.png" width="120" height="32" alt="Example Shop" style="display: block; border: 0;">
          </td>
        </tr>
        <tr>
          <td style="padding: 8px 40px; font-size: 16px; line-height: 24px;">
            <h1 style="font-size: 22px; margin: 16px 0;">Good news, Ada: your order is on its way</h1>
            <p style="margin: 0 0 16px 0;">Order <strong>#100482</strong> left our warehouse this morning and should reach you within two working days. You can follow the parcel with the link below.</p>
            <p style="margin: 0 0 24px 0;"><a class="button" href="https://shop.example.com/orders/100482/track?utm_source=email&amp;utm_medium=transactional">Track your parcel</a></p>
          </td>
        </tr>
        <tr>
          <td style="padding: 0 40px;">
            <table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-top: 1px solid #eaeaec; border-bottom: 1px solid #eaeaec;">
              <tr>
                <td style="padding: 12px 0; font-size: 14px;">Walnut desk organiser</td>
                <td style="padding: 12px 0; font-size: 14px;" align="right">1 &times; &euro;34.00</td>
              </tr>
              <tr>
                <td style="padding: 12px 0; font-size: 14px;">Shipping</td>
                <td style="padding: 12px 0; font-size: 14px;" align="right">&euro;4.90</td>
              </tr>
              <tr>
                <td style="padding: 12px 0; font-size: 15px;"><strong>Total</strong></td>
                <td style="padding: 12px 0; font-size: 15px;" align="right"><strong>&euro;38.90</strong></td>
              </tr>
            </table>
          </td>
        </tr>
        <tr>
          <td style="padding: 24px 40px; font-size: 14px; line-height: 21px;">
            <p style="margin: 0 0 12px 0;">Delivering to: Ada Lovelace, 12 St James's Square, London SW1Y 4JH, United Kingdom.</p>
          </td>
        </tr>
        <tr>
          <td style="padding: 16px 40px 32px 40px; font-size: 12px; line-height: 18px; color: #8a8a99;">
            <p style="margin: 0;">Example Shop Ltd, 1 Market Street, Bristol BS1 1AA. You get this email because you placed an order with us.</p>
          </td>
        </tr>
      </table>
    </td>
  </tr>
</table>
</body>
</html>`;

const TEXT = `Good news, Ada: your order is on its way

Order #100482 left our warehouse this morning and should reach you within two working days.
Track your parcel: https://shop.example.com/orders/100482/track

  Walnut desk organiser          1 x EUR 34.00
  Shipping                           EUR  4.90
  Total                              EUR 38.90

Delivering to: Ada Lovelace, 12 St James's Square, London SW1Y 4JH, United Kingdom.

Example Shop Ltd, 1 Market Street, Bristol BS1 1AA.`;

export const FIXTURE_FROM = 'orders@shop.example.com';
export const FIXTURE_TO = 'ada@example.com';

const MESSAGE = `From: Example Shop <${FIXTURE_FROM}>
To: Ada Lovelace <${FIXTURE_TO}>
Subject: Your order #100482 has shipped
Date: Mon, 23 Nov 2026 09:30:00 +0000
Message-ID: <order-100482-shipped@shop.example.com>
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="=_bench_alt_7f3a"

--=_bench_alt_7f3a
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 7bit

${TEXT}
--=_bench_alt_7f3a
Content-Type: text/html; charset=utf-8
Content-Transfer-Encoding: 7bit

${HTML}
--=_bench_alt_7f3a--
`;

/** The message as sent on the wire (CRLF), without the terminating `.` line. */
export const FIXTURE_MESSAGE: Buffer = Buffer.from(MESSAGE.replace(/\r?\n/g, '\r\n'), 'utf8');

/**
 * The same message with its plain part declared ISO-8859-1 (its bytes are ASCII either way): a
 * charset the quick MIME read leaves to mailparser, so `--message mailparser` measures the
 * capture path of mail that read does not cover (stored, then parsed in the worker).
 */
export const MAILPARSER_MESSAGE: Buffer = Buffer.from(
  FIXTURE_MESSAGE.toString('utf8').replace('Content-Type: text/plain; charset=utf-8', 'Content-Type: text/plain; charset=iso-8859-1'),
  'utf8',
);

/** Size of the HTML part in bytes (for the report). */
export const FIXTURE_HTML_BYTES = Buffer.byteLength(HTML);
