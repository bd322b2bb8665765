import type { CheckReport } from '../../types.ts';
import { Badge } from '../badges/badges.tsx';
import styles from './check-sections.module.css';
import { factClass, findingClass } from './check-sections.tsx';

/** Template findings: a full document inside the account template, merge tags left unfilled; each with its fix. */
export function TemplateList({ report, onLine }: { report: CheckReport; onLine?: (line: number) => void }) {
  const findings = report.template.findings;
  if (findings.length === 0) return <p class={factClass('good')}>One document, and no merge tag left unfilled.</p>;
  return (
    <ul class={styles.checkList}>
      {findings.map((f, i) => (
        <li key={i} class={findingClass(f.severity)} id={i === findings.findIndex((o) => o.rule === f.rule) ? `finding-template/${f.rule}` : undefined}>
          <Badge tone={f.severity === 'error' ? 'bad' : 'warn'}>{f.rule}</Badge> {f.message} <strong>Fix: </strong>
          {f.fix}{' '}
          {f.line !== null ? (
            f.part === 'html' && onLine ? (
              <button type="button" class="link-button" onClick={() => onLine(f.line!)} aria-label={`Show line ${f.line} in the HTML source`}>
                line {f.line}
              </button>
            ) : (
              <span class="muted">
                ({f.part === 'text' ? 'text part, ' : ''}line {f.line})
              </span>
            )
          ) : null}
        </li>
      ))}
    </ul>
  );
}
