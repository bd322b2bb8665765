import { collapseSpaces } from '../mail/whitespace.ts';
import { HtmlParser } from '../mail/html-parser.ts';
import { lineNumbers } from '../mail/line-numbers.ts';

/** One element of the email, as the checks see it: its name, attributes and where it starts. */
export interface ScannedElement {
  name: string;
  attribs: Record<string, string>;
  line: number;
  /** Index of the enclosing element in `elements`, -1 at the top. */
  parent: number;
}

interface ScannedLink {
  href: string;
  /** The link's text (with the alt text of images inside it), whitespace collapsed. */
  text: string;
  line: number;
}

interface ScannedStyle {
  css: string;
  /** Line of the first character of the CSS text. */
  line: number;
  /** Offset in the HTML of the first character of the CSS text. */
  offset: number;
}

/** Everything the checks read from an HTML body, in one pass of htmlparser2. */
export interface ScannedHtml {
  elements: ScannedElement[];
  styles: ScannedStyle[];
  links: ScannedLink[];
  /** The document has a `<body>` tag (else it is a fragment). */
  hasBody: boolean;
  /** The line of an offset of the HTML (1-based). */
  lineOf(offset: number): number;
}

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);

/**
 * Reads the HTML once: every element with its line, the text of `<style>` blocks, and links
 * with their text. Tolerant like a browser (htmlparser2 never throws on bad markup).
 */
export function scanHtml(html: string): ScannedHtml {
  const lineOf = lineNumbers(html);
  const elements: ScannedElement[] = [];
  const styles: ScannedStyle[] = [];
  const links: ScannedLink[] = [];
  const stack: number[] = [];
  let hasBody = false;
  let style: ScannedStyle | null = null;
  let link: { href: string; text: string[]; line: number; depth: number } | null = null;

  const parser: HtmlParser = new HtmlParser(
    {
      onopentag(name, attribs) {
        const line = lineOf(parser.startIndex);
        const index = elements.push({ name, attribs, line, parent: stack.length > 0 ? stack[stack.length - 1]! : -1 }) - 1;
        if (name === 'body') hasBody = true;
        if (name === 'style') style = { css: '', line, offset: -1 };
        if (name === 'a' && attribs.href !== undefined && link === null) link = { href: attribs.href.trim(), text: [], line, depth: stack.length };
        if (name === 'img' && link !== null && attribs.alt) link.text.push(` ${attribs.alt} `);
        if (!VOID.has(name)) stack.push(index);
      },
      ontext(text) {
        if (style !== null) {
          if (style.offset < 0) {
            style.offset = parser.startIndex;
            style.line = lineOf(parser.startIndex);
          }
          style.css += text;
        } else if (link !== null) link.text.push(text);
      },
      onclosetag(name) {
        if (VOID.has(name)) return;
        stack.pop();
        if (name === 'style' && style !== null) {
          if (style.offset >= 0) styles.push(style);
          style = null;
        }
        if (name === 'a' && link !== null && stack.length <= link.depth) {
          links.push({ href: link.href, text: collapseSpaces(link.text.join('')).trim(), line: link.line });
          link = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.end(html);
  return { elements, styles, links, hasBody, lineOf };
}

/** The element's classes. */
export function classesOf(element: ScannedElement): string[] {
  return (element.attribs.class ?? '').split(/\s+/).filter(Boolean);
}
