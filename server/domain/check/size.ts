/** Gmail clips the HTML of a message past this many bytes ("[Message clipped]"). */
export const GMAIL_CLIP_BYTES = 102 * 1024;

/**
 * Attachment limits of common providers, in bytes of the encoded message (attachments grow by
 * a third in base64). Sources in docs/checks.md.
 */
const PROVIDER_LIMITS: readonly { provider: string; limit_bytes: number }[] = [
  { provider: 'Gmail', limit_bytes: 25 * 1024 * 1024 },
  { provider: 'Yahoo Mail', limit_bytes: 25 * 1024 * 1024 },
  { provider: 'Outlook.com', limit_bytes: 20 * 1024 * 1024 },
  { provider: 'iCloud Mail', limit_bytes: 20 * 1024 * 1024 },
  { provider: 'Microsoft 365 (default)', limit_bytes: 35 * 1024 * 1024 },
];

export interface SizeReport {
  /** UTF-8 bytes of the HTML part. */
  html_bytes: number;
  text_bytes: number;
  /** Bytes of the whole message as stored (.eml), or the parts' sum for a draft. */
  message_bytes: number;
  gmail_clip_bytes: number;
  /** The HTML is over Gmail's clipping limit: readers see "[Message clipped]" and a link. */
  gmail_clipped: boolean;
  attachments: {
    count: number;
    bytes: number;
    /** Their size once base64-encoded in the message (what providers' limits count). */
    encoded_bytes: number;
    limits: { provider: string; limit_bytes: number; over: boolean }[];
  };
}

/** Sizes against Gmail's clipping and the providers' attachment limits. */
export function sizeReport(input: { html: string | null; text: string | null; messageBytes: number | null; attachmentSizes: readonly number[] }): SizeReport {
  const htmlBytes = input.html === null ? 0 : Buffer.byteLength(input.html, 'utf8');
  const textBytes = input.text === null ? 0 : Buffer.byteLength(input.text, 'utf8');
  const bytes = input.attachmentSizes.reduce((sum, n) => sum + n, 0);
  // base64: 4 bytes per 3, plus a CRLF every 76 characters.
  const encoded = input.attachmentSizes.reduce((sum, n) => {
    const b64 = Math.ceil(n / 3) * 4;
    return sum + b64 + Math.ceil(b64 / 76) * 2;
  }, 0);
  return {
    html_bytes: htmlBytes,
    text_bytes: textBytes,
    message_bytes: input.messageBytes ?? htmlBytes + textBytes + encoded,
    gmail_clip_bytes: GMAIL_CLIP_BYTES,
    gmail_clipped: htmlBytes > GMAIL_CLIP_BYTES,
    attachments: {
      count: input.attachmentSizes.length,
      bytes,
      encoded_bytes: encoded,
      limits: PROVIDER_LIMITS.map((l) => ({ ...l, over: encoded > l.limit_bytes })),
    },
  };
}
