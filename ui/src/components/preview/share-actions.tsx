import { useState } from 'preact/hooks';
import { useNotices } from '../notices/notices.tsx';
import { downloadPng, renderToCanvas } from './offscreen.ts';

/**
 * Keep or share what is on screen: the link of this view (its URL carries the tab, width, mode
 * and compare pair), a PNG of the preview, and print/PDF (the print stylesheet leaves only the
 * email). `png` gives the document and width to draw, or null when there is no preview.
 */
export function ShareActions({ png }: { png: { doc: string; width: number; name: string } | null }) {
  const notices = useNotices();
  const [copied, setCopied] = useState(false);
  const [drawing, setDrawing] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      setCopied(true);
    } catch {
      // No clipboard (a page on a plain-HTTP LAN name is not a secure context): the link, to copy by hand.
      window.prompt('Copy this link:', location.href);
    }
  };
  const savePng = async () => {
    if (!png) return;
    setDrawing(true);
    try {
      await downloadPng(await renderToCanvas(png.doc, png.width), png.name);
      notices.succeeded('png');
    } catch (error) {
      notices.fail('png', 'Could not make the PNG.', error);
    } finally {
      setDrawing(false);
    }
  };
  return (
    <span class="share-actions">
      <button type="button" class="button ghost small" onClick={() => void copy()} onBlur={() => setCopied(false)} title="Copy a link to this view">
        {copied ? 'Link copied' : 'Copy link'}
      </button>
      {png ? (
        <button type="button" class="button ghost small" onClick={() => void savePng()} disabled={drawing} title="Download the preview as a PNG">
          {drawing ? 'Drawing…' : 'PNG'}
        </button>
      ) : null}
      <button type="button" class="button ghost small" onClick={() => window.print()} title="Print the email, or save it as a PDF">
        Print
      </button>
    </span>
  );
}
