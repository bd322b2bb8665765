import type { Ref } from 'preact';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import styles from './source-view.module.css';

/** The HTML source with line numbers; `line` is highlighted and scrolled into view. */
export function SourceView({ html, line, onClose }: { html: string; line: number | null; onClose: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (line === null) return;
    const row = box.current?.querySelector<HTMLElement>(`[data-line="${line}"]`);
    row?.scrollIntoView({ block: 'center' });
  }, [line, html]);
  return (
    <section class={styles.sourceView} aria-label={line === null ? 'HTML source' : `HTML source, line ${line}`}>
      <header class={styles.sourceViewBar}>
        <strong>HTML source</strong>
        {line !== null ? <span class="muted">line {line}</span> : null}
        <span />
        <button type="button" class="button ghost small" onClick={onClose}>
          Close source
        </button>
      </header>
      <SourceLines text={html} line={line} box={box} />
    </section>
  );
}

/**
 * Text as numbered lines, long lines wrapped (a line keeps its number however many rows it
 * takes); `line` is marked as the current one.
 */
export function SourceLines({ text, line = null, box }: { text: string; line?: number | null; box?: Ref<HTMLDivElement> }) {
  const lines = useMemo(() => text.split(/\r?\n/), [text]);
  return (
    <div class={styles.sourceLines} ref={box}>
      {lines.map((content, i) => (
        <div
          key={i}
          data-line={i + 1}
          class={i + 1 === line ? `${styles.sourceLine} ${styles.current}` : styles.sourceLine}
          aria-current={i + 1 === line ? 'true' : undefined}
        >
          <span class={styles.sourceNumber}>{i + 1}</span>
          <code>{content || ' '}</code>
        </div>
      ))}
    </div>
  );
}
