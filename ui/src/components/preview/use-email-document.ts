import { useEffect, useMemo, useState } from 'preact/hooks';
import { sandbox } from '../../sandbox.ts';
import { useLoad } from '../../state/hooks.ts';
import { previewPolicy } from '../../../../server/domain/mail/preview-policy.ts';
import { colorModeDocument, type ColorMode } from './dark-preview.ts';
import { measureHeight } from './offscreen.ts';

/**
 * A capture's HTML as the server prepares it, rewritten for the colour mode (dark-preview.ts) into
 * a document for a srcdoc frame; and its height at `px` wide, measured off screen, so the preview
 * shows the whole email instead of a box scrolled inside. The height is measured with remote
 * content blocked, whatever the preview loads: a tracking pixel is fetched once, by the preview.
 */
export function useEmailDocument(id: string, mode: ColorMode, remote: boolean, px: number) {
  const local = useLoad((signal) => sandbox.html(id, { signal }), [id]);
  const withRemote = useLoad((signal) => (remote ? sandbox.html(id, { remote, signal }) : Promise.resolve(null)), [id, remote]);
  const html = remote ? withRemote.data : local.data;
  const doc = useMemo(
    () => (typeof html === 'string' ? colorModeDocument(html, mode, previewPolicy(location.origin, remote, 'meta')) : null),
    [html, mode, remote],
  );
  const measured = useMemo(
    () => (typeof local.data === 'string' ? colorModeDocument(local.data, mode, previewPolicy(location.origin, false, 'meta')) : null),
    [local.data, mode],
  );
  const height = useMeasuredHeight(measured, px);
  return { doc, error: local.error ?? withRemote.error, height };
}

/**
 * The document's whole height at `px` wide; null until it is first measured (or while `px` is 0).
 * A changed document keeps the last height until its own is measured: the page around it does not
 * jump (a template file re-rendered on save keeps its scroll position).
 */
export function useMeasuredHeight(doc: string | null, px: number): number | null {
  const [height, setHeight] = useState<{ doc: string; px: number; height: number } | null>(null);
  useEffect(() => {
    if (doc === null || px <= 0) return;
    let current = true;
    void measureHeight(doc, px).then((h) => current && setHeight({ doc, px, height: h }));
    return () => {
      current = false;
    };
  }, [doc, px]);
  return height !== null && height.px === px && doc !== null ? height.height : null;
}
