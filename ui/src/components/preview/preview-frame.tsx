import styles from './preview-frame.module.css';

import type { PreviewWidth } from '../../state/view-url.ts';

export type { PreviewWidth } from '../../state/view-url.ts';

export const WIDTHS: { id: PreviewWidth; label: string; px: number | null }[] = [
  { id: 'phone', label: 'Phone', px: 375 },
  { id: 'tablet', label: 'Tablet', px: 768 },
  { id: 'desktop', label: 'Desktop', px: null },
];

/** Phone / tablet / desktop: the width the email is previewed at. */
export function WidthSwitch({ value, onChange }: { value: PreviewWidth; onChange: (width: PreviewWidth) => void }) {
  return (
    <div class="segmented" role="group" aria-label="Preview width">
      {WIDTHS.map((w) => (
        <button type="button" key={w.id} aria-pressed={value === w.id} onClick={() => onChange(w.id)} title={w.px ? `${w.px} px wide` : 'Full width'}>
          {w.label}
        </button>
      ))}
    </div>
  );
}

interface FrameProps {
  title: string;
  width: PreviewWidth;
  /** A URL the server prepared (CSP without scripts), or a document to show inline. */
  src?: string;
  srcDoc?: string;
  /** A dark mode is shown: the stage around the frame goes dark too. */
  dark?: 'styles' | 'invert';
  /** On a stage of its own (the template previews): no backdrop or padding around the frame. */
  bare?: boolean;
  /** One of the side-by-side previews: a fixed height instead of the pane's. */
  gallery?: boolean;
  /** The email's whole height (measured off screen): the frame takes it, and the page scrolls instead of the frame. */
  height?: number | null;
}

/**
 * Email HTML in a sandboxed frame. The sandbox has no `allow-scripts` and no
 * `allow-same-origin`: nothing in the email runs, and it cannot reach the inbox page.
 * Links may open in a new tab (outside the sandbox), never in this one.
 */
export function PreviewFrame({ title, width, src, srcDoc, dark, bare, gallery, height }: FrameProps) {
  const fitted = typeof height === 'number';
  const px = WIDTHS.find((w) => w.id === width)?.px ?? null;
  return (
    <div
      class={[
        styles.frameStage,
        width === 'desktop' ? styles.widthDesktop : '',
        bare ? styles.bare : '',
        gallery ? styles.gallery : '',
        fitted ? styles.fitted : '',
        dark ? styles.stageDark : '',
      ]
        .filter(Boolean)
        .join(' ')}
      data-testid="frame-stage"
    >
      <iframe
        class={styles.previewFrame}
        title={title}
        sandbox="allow-popups allow-popups-to-escape-sandbox"
        referrerpolicy="no-referrer"
        src={src}
        srcdoc={srcDoc}
        style={{ width: px === null ? '100%' : `${px}px`, height: fitted ? `${height}px` : undefined }}
        data-width={width}
        data-color-mode={dark ?? 'light'}
      />
    </div>
  );
}
