import type { AttachmentRecord } from '../entities.ts';
import { isScriptUrl } from './extract.ts';
import { headPosition } from './html-head.ts';
import { HtmlParser } from './html-parser.ts';

export interface PreparedHtml {
  html: string;
  /** The body loads something from the network (images, styles, fonts). */
  hasRemoteContent: boolean;
}

const CID_REFERENCE = /\bcid:([^"'\s)>]+)/gi;
// No two quantifiers next to each other over the same characters (`\s*["']?\s*` retried every
// split of a whitespace run: quadratic, issue 19).
const REMOTE_REFERENCE = /(?:\b(?:src|background|poster|srcset)\s*=\s*(?:["']\s*)?|url\(\s*(?:["']\s*)?|@import\s+["']?)(?:https?:)?\/\//i;

/**
 * The HTML body as the preview frame shows it: `cid:` references point at the capture's
 * attachment URLs, links open outside the frame, and links to scripts (`javascript:`, also when
 * hidden by tabs or line breaks) lose their href. Scripts and remote content are kept out by the
 * response's Content-Security-Policy, not by rewriting the markup; only what a browser reaches
 * for past that policy (a frame's host, resource hints) is taken out when remote content is off
 * (`local`). Every step is one pass.
 */
export function prepareHtml(
  html: string,
  attachments: readonly AttachmentRecord[],
  attachmentUrl: (index: number) => string,
  { local = false }: { local?: boolean } = {},
): PreparedHtml {
  const byCid = new Map<string, number>();
  attachments.forEach((a, index) => {
    if (a.contentId) byCid.set(normaliseCid(a.contentId), index);
  });
  const rewritten = html.replace(CID_REFERENCE, (whole, cid: string) => {
    const index = byCid.get(normaliseCid(safeDecode(cid)));
    return index === undefined ? whole : attachmentUrl(index);
  });
  const safe = withBaseTarget(withoutScriptLinks(rewritten));
  return { html: local ? withoutFrames(safe) : safe, hasRemoteContent: hasRemoteContent(html) };
}

/**
 * Every element that reaches a host past the preview's policy, made inert: Chromium opens a
 * connection to an `<iframe src>`'s host although `frame-src 'none'` refuses the frame, and a
 * `<link rel=preconnect|dns-prefetch|prefetch|preload>` is no fetch the policy governs. The tag
 * names are replaced wherever they stand as `<name` (start and end tags, also inside comments
 * or attribute values, where the reader sees no difference), so no parse of the result, however
 * it disagrees with ours, has such an element: an iframe becomes a `<noembed>` (raw text, not
 * shown), an object a `<span>` (its fallback content shows), an embed a `<wbr>`, a frame and a
 * link a `<basefont>` (void elements the parser places as it places them; neither loads).
 */
function withoutFrames(html: string): string {
  return html.replace(FRAMING, (_whole, slash: string, name: string) => `<${slash}${INERT[name.toLowerCase() as keyof typeof INERT]}`);
}

// A tag name ends at whitespace, `/` or `>` (a carriage return is a line feed by then).
const FRAMING = /<(\/?)(iframe|frame|object|embed|link)(?=[\t\n\f\r />]|$)/gi;
const INERT = { iframe: 'noembed', frame: 'basefont', object: 'span', embed: 'wbr', link: 'basefont' };

export function hasRemoteContent(html: string): boolean {
  return REMOTE_REFERENCE.test(html);
}

function normaliseCid(cid: string): string {
  return cid.trim().replace(/^<|>$/g, '').toLowerCase();
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Links in a preview open a new browsing context instead of navigating the frame. */
function withBaseTarget(html: string): string {
  const at = headPosition(html).at;
  return `${html.slice(0, at)}<base target="_blank">${html.slice(at)}`;
}

/**
 * The `href` (and SVG `xlink:href`) attributes whose URL is a script, removed: a browser drops
 * tabs and line breaks in a URL, so `java&#9;script:` runs as `javascript:` when clicked.
 */
function withoutScriptLinks(html: string): string {
  const cuts: [number, number][] = [];
  const parser: HtmlParser = new HtmlParser(
    {
      onattribute(name, value) {
        if ((name === 'href' || name === 'xlink:href') && isScriptUrl(value)) cuts.push([parser.startIndex, parser.endIndex]);
      },
    },
    { decodeEntities: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  if (cuts.length === 0) return html;
  const out: string[] = [];
  let from = 0;
  for (const [start, end] of cuts) {
    out.push(html.slice(from, start));
    from = end;
  }
  out.push(html.slice(from));
  return out.join('');
}
