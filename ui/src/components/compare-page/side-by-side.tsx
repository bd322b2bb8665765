import { useRef } from 'preact/hooks';
import type { ColorMode } from '../preview/dark-preview.ts';
import { PreviewFrame, type PreviewWidth } from '../preview/preview-frame.tsx';
import styles from './compare-page.module.css';

interface EmailDoc {
  doc: string | null;
  height: number | null;
  error: Error | null;
}

/**
 * The two emails beside each other, each at its whole height in a pane of its own; scrolling one
 * pane scrolls the other to the same offset (Maizzle-style scroll sync).
 */
export function SideBySide({ width, mode, a, b }: { width: PreviewWidth; mode: ColorMode; a: EmailDoc; b: EmailDoc }) {
  const panes = useRef<(HTMLDivElement | null)[]>([null, null]);
  const sync = (from: number) => {
    const source = panes.current[from];
    const target = panes.current[1 - from];
    // Setting the other pane fires its scroll event, which finds both at one offset and stops.
    if (source && target && target.scrollTop !== source.scrollTop) target.scrollTop = source.scrollTop;
  };
  return (
    <div class={styles.sideBySide}>
      {[a, b].map((email, i) => (
        <div
          key={i}
          class={styles.pane}
          ref={(element) => {
            panes.current[i] = element;
          }}
          onScroll={() => sync(i)}
          data-testid={i === 0 ? 'pane-before' : 'pane-after'}
          role="region"
          aria-label={i === 0 ? 'Before' : 'After'}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls and the frame in it takes no focus; a keyboard scrolls it once it is focused (axe: scrollable-region-focusable).
          tabIndex={0}
        >
          {email.error ? (
            <p class="banner error">Could not load the HTML: {email.error.message}</p>
          ) : email.doc === null ? (
            <p class="muted pad">Loading…</p>
          ) : (
            <PreviewFrame
              title={i === 0 ? 'Before' : 'After'}
              width={width}
              srcDoc={email.doc}
              dark={mode === 'light' ? undefined : mode}
              height={email.height}
            />
          )}
        </div>
      ))}
    </div>
  );
}
