/**
 * The colour modes of the preview as the inbox offers them, and the Templates page's srcdoc
 * document: the rewrite for a mode is shared with the server (color-mode.ts), and the policy is
 * the server's (preview-policy.ts), placed by the browser's own HTML parser.
 */
import { type ColorMode, colorModeHtml } from '../../../../server/domain/mail/color-mode.ts';

export type { ColorMode };

/** The system prefers dark: a plain frame would apply the email's dark styles. */
export function systemPrefersDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
}

export const COLOR_MODES: { id: ColorMode; label: string; title: string }[] = [
  { id: 'light', label: 'Light', title: 'As sent, in a light client' },
  { id: 'styles', label: 'Dark: own styles', title: "The email's prefers-color-scheme: dark styles, as Apple Mail shows it" },
  { id: 'invert', label: 'Dark: inverted', title: 'Colours forced dark by inversion, as the Gmail apps and Outlook.com do' },
];

/**
 * The email as a document for a srcdoc frame in the given mode, with `policy` as the first
 * element of its head. The browser parses the email (DOMParser: no script runs, nothing loads)
 * and the policy goes into the head it found, so no head finder of ours can be fooled; the
 * document is then written out from that tree, its doctype kept (and with it quirks mode).
 */
export function colorModeDocument(html: string, mode: ColorMode, policy: string): string {
  const doc = new DOMParser().parseFromString(colorModeHtml(html, mode), 'text/html');
  const meta = doc.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = policy;
  doc.head.prepend(meta);
  return `${doctypeOf(doc)}${doc.documentElement.outerHTML}`;
}

function doctypeOf(doc: Document): string {
  const type = doc.doctype;
  if (!type) return '';
  const quoted = (id: string) => (id.includes('"') ? `'${id}'` : `"${id}"`);
  const publicId = type.publicId ? ` PUBLIC ${quoted(type.publicId)}` : '';
  const systemId = type.systemId ? `${type.publicId ? '' : ' SYSTEM'} ${quoted(type.systemId)}` : '';
  return `<!DOCTYPE ${type.name}${publicId}${systemId}>`;
}
