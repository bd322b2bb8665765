import type { AttachmentRecord } from '../entities.ts';

export interface PreparedHtml {
  html: string;
  /** The body loads something from the network (images, styles, fonts). */
  hasRemoteContent: boolean;
}

const CID_REFERENCE = /\bcid:([^"'\s)>]+)/gi;
const REMOTE_REFERENCE = /(?:\b(?:src|background|poster|srcset)\s*=\s*["']?\s*|url\(\s*["']?\s*|@import\s+["']?)(?:https?:)?\/\//i;

/**
 * The HTML body as the preview frame shows it: `cid:` references point at the capture's
 * attachment URLs, and links open outside the frame. Scripts and remote content are kept
 * out by the response's Content-Security-Policy, not by rewriting the markup.
 */
export function prepareHtml(html: string, attachments: readonly AttachmentRecord[], attachmentUrl: (index: number) => string): PreparedHtml {
  const byCid = new Map<string, number>();
  attachments.forEach((a, index) => {
    if (a.contentId) byCid.set(normaliseCid(a.contentId), index);
  });
  const rewritten = html.replace(CID_REFERENCE, (whole, cid: string) => {
    const index = byCid.get(normaliseCid(safeDecode(cid)));
    return index === undefined ? whole : attachmentUrl(index);
  });
  return { html: withBaseTarget(rewritten), hasRemoteContent: hasRemoteContent(html) };
}

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
  const base = '<base target="_blank">';
  const anchor = /<head\b[^>]*>/i.exec(html) ?? /<html\b[^>]*>/i.exec(html) ?? /^\s*<!doctype[^>]*>/i.exec(html);
  if (!anchor) return base + html;
  const at = anchor.index + anchor[0].length;
  return html.slice(0, at) + base + html.slice(at);
}
