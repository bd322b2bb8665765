import { memo } from 'preact/compat';
import type { CheckReport } from '../types.ts';
import { AccessibilityList, CompatibilityWarnings, DarkModeList, Scores, SizeSummary } from './check-sections.tsx';

/**
 * The Templates page's live check of the draft (wrapped in the sender's template): scores,
 * size, accessibility and the costliest compatibility warnings. Memoised, so typing re-renders
 * only the editor; the check itself is fetched after the debounce, off the typing path.
 */
export const LiveCheck = memo(function LiveCheck({ report, pending, error }: { report: CheckReport | null; pending: boolean; error: string | null }) {
  return (
    <section class="live-check" aria-labelledby="live-check-title" aria-busy={pending}>
      <h2 id="live-check-title" class="live-check-title">
        Live check <span class="muted small">{pending ? 'updating…' : 'up to date'}</span>
      </h2>
      {error ? <p class="banner error">Check failed: {error}</p> : null}
      {report === null ? (
        <p class="muted">Checking…</p>
      ) : (
        <div class="check-report compact">
          <Scores report={report} />
          <SizeSummary size={report.size} />
          <details class="check-section" open>
            <summary>
              Accessibility <span class="muted">({report.accessibility.issues.length})</span>
            </summary>
            <AccessibilityList report={report} />
          </details>
          <details class="check-section">
            <summary>
              Email clients <span class="muted">({report.html?.warnings.length ?? 0})</span>
            </summary>
            <CompatibilityWarnings report={report} limit={8} />
          </details>
          {report.dark_mode ? (
            <details class="check-section">
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
