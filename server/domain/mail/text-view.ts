import type { HtmlToTextOptions } from 'html-to-text';
import { lazy } from '../lazy.ts';
import { readHtml } from './extract.ts';
import { htmlShape } from './html-parser.ts';

/**
 * The text of a capture as a reader of a text-only mail client would get it: the plain part
 * when there is one, otherwise a rendering of the HTML (headings, lists, tables laid out as
 * text, links as "text (url)"), marked as derived so a test can tell it from a real plain part.
 * Computed on read, never stored.
 */
export interface TextView {
  text: string | null;
  /** True when `text` was rendered from the HTML because the capture has no plain part. */
  derived: boolean;
}

const OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    { selector: 'a', options: { linkBrackets: ['(', ')'], hideLinkHrefIfSameAsText: true, noAnchorUrl: true } },
    { selector: 'img', format: 'skip' },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    // Layout tables (one cell per row) come out as plain blocks, data tables as aligned columns;
    // a cell's text is never wrapped (a paragraph in a layout cell stays one line).
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false, maxColumnWidth: 10_000 } },
  ],
};

/**
 * Deeper than this, or with more table cells, the HTML is read by our own linear reader
 * (readHtml: blocks on their own lines, no table layout) instead of html-to-text (issue 19):
 * html-to-text builds its tree with htmlparser2's Parser, whose cost grows with the depth at
 * every element, and walks it recursively (100,000 nested elements overflowed the stack); its
 * table layout grows faster than the cells (250 KB of cells took 1.5 s). Real mail nests a few
 * dozen deep and has at most a few hundred cells.
 */
const MAX_RENDERED_DEPTH = 256;
const MAX_RENDERED_CELLS = 2000;

const renderer = lazy(async () => (await import('html-to-text')).convert);

export async function textView(html: string | null, text: string | null): Promise<TextView> {
  if (text !== null && text.trim() !== '') return { text, derived: false };
  if (html === null || html.trim() === '') return { text, derived: false };
  // Plain text posted into an HTML field (a Django backend's `body`): its lines are its layout.
  if (!/<[a-z!/?]/i.test(html)) return { text: readHtml(html).text, derived: true };
  const shape = htmlShape(html);
  if (shape.depth > MAX_RENDERED_DEPTH || shape.cells > MAX_RENDERED_CELLS) return { text: readHtml(html).text, derived: true };
  const convert = await renderer();
  return { text: convert(html, OPTIONS), derived: true };
}
