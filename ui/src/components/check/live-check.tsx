import { memo } from 'preact/compat';
import type { CheckReport } from '../../types.ts';
import { AccessibilityList, CompatibilityWarnings, DarkModeList, Scores, SizeSummary } from './check-sections.tsx';
import sections from './check-sections.module.css';
import styles from './live-check.module.css';
import { TemplateList } from './template-list.tsx';

/**
 * The Templates page's live check of the draft (wrapped in the sender's template): scores,
 * size, accessibility and the costliest compatibility warnings. Memoised, so typing re-renders
 * only the editor; the check itself is fetched after the debounce, off the typing path.
 */
export const LiveCheck = memo(function LiveCheck({
  report,
  pending,
  error,
  short,
}: {
  report: CheckReport | null;
  pending: boolean;
  error: string | null;
  /** Beside the editor rather than under it: less tall. */
  short?: boolean;
}) {
  return (
    <section class={short ? `${styles.liveCheck} ${styles.short}` : styles.liveCheck} aria-labelledby="live-check-title" aria-busy={pending}>
      <h2 id="live-check-title" class={styles.liveCheckTitle}>
        Live check <span class="muted small">{pending ? 'updating…' : 'up to date'}</span>
      </h2>
      {error ? <p class="banner error">Check failed: {error}</p> : null}
      {report === null ? (
        <p class="muted">Checking…</p>
      ) : (
        <div class={`${sections.checkReport} ${sections.compact}`}>
          <Scores report={report} />
          <SizeSummary size={report.size} />
          {report.template.findings.length ? (
            <details class={sections.checkSection} open>
              <summary>
                Template <span class="muted">({report.template.findings.length})</span>
              </summary>
              <TemplateList report={report} />
            </details>
          ) : null}
          <details class={sections.checkSection} open>
            <summary>
              Accessibility <span class="muted">({report.accessibility.issues.length})</span>
            </summary>
            <AccessibilityList report={report} />
          </details>
          <details class={sections.checkSection}>
            <summary>
              Email clients <span class="muted">({report.html?.warnings.length ?? 0})</span>
            </summary>
            <CompatibilityWarnings report={report} limit={8} />
          </details>
          {report.dark_mode ? (
            <details class={sections.checkSection}>
              <summary>
                Dark mode <span class="muted">({report.dark_mode.findings.length})</span>
              </summary>
              <DarkModeList report={report} />
            </details>
          ) : null}
        </div>
      )}
    </section>
  );
});
