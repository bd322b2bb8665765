import type { HtmlToTextOptions } from 'html-to-text';
import { lazy } from '../lazy.ts';
import { readHtml } from './extract.ts';

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

const renderer = lazy(async () => (await import('html-to-text')).convert);

export async function textView(html: string | null, text: string | null): Promise<TextView> {
  if (text !== null && text.trim() !== '') return { text, derived: false };
  if (html === null || html.trim() === '') return { text, derived: false };
  // Plain text posted into an HTML field (a Django backend's `body`): its lines are its layout.
  if (!/<[a-z!/?]/i.test(html)) return { text: readHtml(html).text, derived: true };
  const convert = await renderer();
  return { text: convert(html, OPTIONS), derived: true };
}
