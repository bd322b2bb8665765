import { useEffect, useState } from 'preact/hooks';
import styles from './compare-page.module.css';

type Part = { added?: boolean; removed?: boolean; value: string; count?: number };

/** Unchanged runs longer than this fold to their first and last lines. */
const CONTEXT = 3;

/** The HTML of the two, line by line (the `diff` package, loaded on first use): removed and added lines, with a little context. */
export function HtmlDiff({ a, b }: { a: string | null; b: string | null }) {
  const [parts, setParts] = useState<Part[] | null>(null);
  useEffect(() => {
    let current = true;
    void import('diff').then(({ diffLines }) => current && setParts(diffLines(a ?? '', b ?? '')));
    return () => {
      current = false;
    };
  }, [a, b]);
  if (!parts) return <p class="muted pad">Comparing…</p>;
  const added = parts.filter((p) => p.added).reduce((n, p) => n + (p.count ?? 0), 0);
  const removed = parts.filter((p) => p.removed).reduce((n, p) => n + (p.count ?? 0), 0);
  return (
    <div>
      <p class="part-toolbar" role="status">
        {added === 0 && removed === 0 ? 'The HTML is the same.' : `${added} line${added === 1 ? '' : 's'} added, ${removed} removed.`}
      </p>
      <pre class={`code-block ${styles.htmlDiff}`} data-testid="html-diff">
        {parts.map((part, i) => {
          if (part.added || part.removed)
            return (
              <span key={i} class={part.added ? styles.added : styles.removed}>
                {prefixed(part.value, part.added ? '+ ' : '- ')}
              </span>
            );
          const lines = part.value.replace(/\n$/, '').split('\n');
          if (lines.length <= CONTEXT * 2 + 1) return <span key={i}>{prefixed(part.value, '  ')}</span>;
          const head = i === 0 ? [] : lines.slice(0, CONTEXT);
          const tail = i === parts.length - 1 ? [] : lines.slice(-CONTEXT);
          return (
            <span key={i}>
              {head.length ? prefixed(`${head.join('\n')}\n`, '  ') : ''}
              <span class={styles.folded}>{`  … ${lines.length - head.length - tail.length} unchanged lines …\n`}</span>
              {tail.length ? prefixed(`${tail.join('\n')}\n`, '  ') : ''}
            </span>
          );
        })}
      </pre>
    </div>
  );
}

function prefixed(text: string, prefix: string): string {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return `${body
    .split('\n')
    .map((line) => prefix + line)
    .join('\n')}\n`;
}
