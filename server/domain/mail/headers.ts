export interface HeaderField {
  name: string;
  value: string;
}

/**
 * Parses a header block (latin1 text: bytes as they are, decoded per field below); with
 * `only`, just the fields of those (lower-case) names are decoded and returned.
 */
export function parseHeaders(text: string, only?: ReadonlySet<string>): HeaderField[] {
  const end = text.search(/\r?\n\r?\n/);
  const block = end < 0 ? text : text.slice(0, end);
  const fields: HeaderField[] = [];
  for (const line of block.split(/\r?\n(?![ \t])/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    if (!/^[!-9;-~]+$/.test(name) || (only !== undefined && !only.has(name.toLowerCase()))) continue;
    const raw = Buffer.from(line.slice(colon + 1).replace(/\r?\n[ \t]/g, ' '), 'latin1').toString('utf8');
    fields.push({ name, value: decodeWords(raw.trim()) });
  }
  return fields;
}

const ENCODED_WORD = /=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g;

/** Decodes RFC 2047 encoded words; whitespace between two adjacent words is dropped. */
export function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)\s+(?==\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)/g, '$1')
    .replace(ENCODED_WORD, (whole, charset: string, encoding: string, data: string) => {
      try {
        const bytes =
          encoding.toUpperCase() === 'B'
            ? Buffer.from(data, 'base64')
            : Buffer.from(
                data.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
                'latin1',
              );
        return new TextDecoder(charset.split('*')[0]!.toLowerCase()).decode(bytes);
      } catch {
        return whole;
      }
    });
}
