import { useEffect, useMemo, useRef } from 'preact/hooks';

/** The HTML source with line numbers; `line` is highlighted and scrolled into view. */
export function SourceView({ html, line, onClose }: { html: string; line: number | null; onClose: () => void }) {
  const lines = useMemo(() => html.split('\n'), [html]);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (line === null) return;
    const row = box.current?.querySelector<HTMLElement>(`[data-line="${line}"]`);
    row?.scrollIntoView({ block: 'center' });
  }, [line, html]);
  return (
    <section class="source-view" aria-label={line === null ? 'HTML source' : `HTML source, line ${line}`}>
      <header class="source-view-bar">
        <strong>HTML source</strong>
        {line !== null ? <span class="muted">line {line}</span> : null}
        <span class="spacer" />
        <button type="button" class="button ghost small" onClick={onClose}>
          Close source
        </button>
      </header>
      <div class="source-lines" ref={box}>
        {lines.map((text, i) => (
          <div key={i} data-line={i + 1} class={i + 1 === line ? 'source-line current' : 'source-line'} aria-current={i + 1 === line ? 'true' : undefined}>
            <span class="source-number">{i + 1}</span>
            <code>{text || ' '}</code>
          </div>
        ))}
      </div>
    </section>
  );
}
