/** Characters of body text kept on each capture for the list preview and for search. */
const SNIPPET_LENGTH = 200;

/**
 * The start of a message's text, whitespace collapsed: the plain body when there is one,
 * otherwise the HTML body with its markup, styles and scripts removed.
 */
export function textSnippet(text: string | null, html: string | null): string {
  const source = text !== null && text.trim() !== '' ? text : html !== null ? htmlToText(html) : '';
  return source.replace(/\s+/g, ' ').trim().slice(0, SNIPPET_LENGTH);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function htmlToText(html: string): string {
  // Only the start is needed; bounding the input keeps a huge body from costing a full pass.
  return html
    .slice(0, 64 * 1024)
    .replace(/<(head|style|script|title)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    });
}
