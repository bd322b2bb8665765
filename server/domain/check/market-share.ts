/**
 * Share of email opens per client (percent), for market_score. Source: Litmus, "Email Client
 * Market Share in April 2022" (litmus.com/blog), the last month for which Litmus published the
 * split of Apple's opens: Apple 57.2 (Mail Privacy Protection 50.2, iPhone 3.7, macOS Mail 2.9,
 * iPad 0.4), Gmail 29.5, Outlook 4.2, Yahoo Mail 3.4, Google Android 1.9, Outlook.com 1.0,
 * Samsung Mail 0.4, Windows Live Mail 0.08, Web.de 0.06, GMX 0.05. How each figure was spread
 * over caniemail's clients is in docs/checks.md ("Market share").
 */
export const MARKET_SHARE: Readonly<Record<string, number>> = {
  // Apple: iPhone + iPad 4.1 and macOS 2.9, Privacy Protection's 50.2 spread in that ratio.
  'apple-mail.ios': 33.5,
  'apple-mail.macos': 23.7,
  // Gmail 29.5 in equal parts over its four platforms; Google Android's 1.9 to the Android app.
  'gmail.desktop-webmail': 7.375,
  'gmail.ios': 7.375,
  'gmail.android': 9.275,
  'gmail.mobile-webmail': 7.375,
  // Outlook (the desktop programs) 4.2: three quarters Windows, a quarter macOS.
  'outlook.windows': 3.15,
  'outlook.macos': 1.05,
  'outlook.outlook-com': 1.0,
  'outlook.windows-mail': 0.08,
  // Yahoo Mail 3.4 in equal parts.
  'yahoo.desktop-webmail': 1.133,
  'yahoo.ios': 1.133,
  'yahoo.android': 1.134,
  'samsung-email.android': 0.4,
  'web-de.desktop-webmail': 0.06,
  'gmx.desktop-webmail': 0.05,
};
