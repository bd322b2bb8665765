import { useState } from 'preact/hooks';
import { fileSize, plural } from '../../format.ts';
import type { CheckPlatform, CheckReport, ClientSupport, CompatibilityWarning } from '../../types.ts';
import styles from './check-sections.module.css';
import { Badge } from '../badges/badges.tsx';
import { NoteText } from './note-text.tsx';

const PLATFORM_CHOICES: { id: CheckPlatform | 'all'; label: string }[] = [
  { id: 'all', label: 'All clients' },
  { id: 'desktop', label: 'Desktop' },
  { id: 'web', label: 'Web' },
  { id: 'mobile', label: 'Mobile' },
];

/** All / desktop / web / mobile: which clients the compatibility check considers. */
export function PlatformSwitch({ value, onChange }: { value: CheckPlatform | 'all'; onChange: (p: CheckPlatform | 'all') => void }) {
  return (
    <div class="segmented" role="group" aria-label="Email clients">
      {PLATFORM_CHOICES.map((p) => (
        <button type="button" key={p.id} aria-pressed={value === p.id} onClick={() => onChange(p.id)}>
          {p.label}
        </button>
      ))}
    </div>
  );
}

function tone(score: number): string {
  return score >= 90 ? 'good' : score >= 75 ? 'warn' : 'bad';
}

/** The two scores first, each with what it means. */
export function Scores({ report }: { report: CheckReport }) {
  const html = report.html;
  if (!html) return <p class="muted">This email has no HTML part: there is nothing to check against email clients.</p>;
  return (
    <div class={styles.scores}>
      <div
        class={`${styles.score} ${styles[tone(html.score)]}`}
        title="Mailpit's worst case: 100 minus the worst unsupported and partial shares of client versions, each weighted by how often the feature occurs"
      >
        <span class={styles.scoreValue} data-testid="check-score">
          {html.score.toFixed(1)}
        </span>
        <span class={styles.scoreLabel}>compatibility (worst case)</span>
      </div>
      <div class={`${styles.score} ${styles[tone(html.market_score)]}`} title="The same, with each client weighted by its share of email opens">
        <span class={styles.scoreValue} data-testid="check-market-score">
          {html.market_score.toFixed(1)}
        </span>
        <span class={styles.scoreLabel}>by market share</span>
      </div>
      <p class={`${styles.scoreNote} muted small`}>
        {html.clients.length} clients · caniemail data of {html.data.date.slice(0, 10)} · {plural(html.warnings.length, 'feature')} with limited support
        {html.warnings.some((w) => w.impact === 'ignored')
          ? ` (${html.warnings.filter((w) => w.impact === 'ignored').length} only enhancements, not counted)`
          : ''}
      </p>
    </div>
  );
}

/** HTML size, the whole message, Gmail clipping and attachment limits. */
export function SizeSummary({ size }: { size: CheckReport['size'] }) {
  const over = size.attachments.limits.filter((l) => l.over);
  return (
    <ul class={styles.checkFacts}>
      <li class={factClass(size.gmail_clipped ? 'bad' : 'good')} data-testid="gmail-clipping" id="finding-size/gmail_clipped">
        {size.gmail_clipped
          ? `Clipped by Gmail: the HTML is ${fileSize(size.html_bytes)}, over Gmail's ${size.gmail_clip_bytes / 1024} KB; readers see "[Message clipped]".`
          : `Not clipped by Gmail: the HTML is ${fileSize(size.html_bytes)} of ${size.gmail_clip_bytes / 1024} KB.`}
      </li>
      <li class={factClass()}>Whole message: {fileSize(size.message_bytes)}</li>
      {size.attachments.count > 0 ? (
        <li class={factClass(over.length ? 'bad' : undefined)}>
          {plural(size.attachments.count, 'attachment')}: {fileSize(size.attachments.encoded_bytes)} encoded
          {over.length ? `, over the limit of ${over.map((l) => `${l.provider} (${fileSize(l.limit_bytes)})`).join(', ')}` : ', within every provider limit'}
        </li>
      ) : null}
    </ul>
  );
}

const SUPPORT_LABEL: Record<ClientSupport, string> = { yes: 'yes', partial: 'partial', no: 'no' };
const SUPPORT_CLASS: Record<ClientSupport, string> = { yes: styles.supportYes!, partial: styles.supportPartial!, no: styles.supportNo! };

/** A fact of the report, good or bad when it is either. */
export function factClass(tone?: 'good' | 'bad'): string {
  return tone ? `${styles.fact} ${styles[tone]}` : styles.fact!;
}

/** A finding, coloured by how bad it is (a header check's `ok` is not coloured). */
export function findingClass(level: 'ok' | 'warning' | 'error'): string {
  return level === 'ok' ? styles.finding! : `${styles.finding} ${styles[level]}`;
}

function LineLinks({ lines, onLine }: { lines: number[]; onLine?: (line: number) => void }) {
  if (lines.length === 0) return null;
  const shown = lines.slice(0, 12);
  return (
    <span>
      {plural(lines.length, 'line')}:{' '}
      {shown.map((line) =>
        onLine ? (
          <button type="button" class="link-button" key={line} onClick={() => onLine(line)} aria-label={`Show line ${line} in the HTML source`}>
            {line}
          </button>
        ) : (
          <span key={line}>{line} </span>
        ),
      )}
      {lines.length > shown.length ? <span class="muted"> and {lines.length - shown.length} more</span> : null}
    </span>
  );
}

function WarningItem({ warning, names, onLine }: { warning: CompatibilityWarning; names: Map<string, string>; onLine?: (line: number) => void }) {
  const entries = Object.entries(warning.support);
  const no = entries.filter(([, s]) => s === 'no').length;
  const partial = entries.filter(([, s]) => s === 'partial').length;
  // A progressive enhancement: a client without it shows the email as it would be without it (not counted in the scores).
  const ignored = warning.impact === 'ignored';
  return (
    <li id={`finding-compatibility/${warning.feature}`}>
      <details class={styles.checkItem}>
        <summary>
          <Badge tone={warning.severity === 'error' ? 'bad' : 'warn'}>{warning.category}</Badge>
          <span class={styles.checkTitle}>{warning.title}</span>
          {ignored ? <Badge tone="neutral">enhancement</Badge> : null}
          <span class="muted small">
            ×{warning.count} · {no ? (ignored ? `ignored by ${no}` : `breaks in ${no}`) : ''}
            {no && partial ? ', ' : ''}
            {partial ? `partial in ${partial}` : ''} of {entries.length} clients
          </span>
        </summary>
        <div class={styles.checkDetail}>
          {ignored ? (
            <p class="muted small">Used only as an enhancement here: where it is not supported it is ignored without harm, so it does not lower the scores.</p>
          ) : warning.enhancement_count > 0 ? (
            <p class="muted small">{warning.enhancement_count} of its uses are inside an enhancement and do not count in the scores.</p>
          ) : null}
          <p>
            <LineLinks lines={warning.lines} onLine={onLine} /> ·{' '}
            <a href={warning.url} target="_blank" rel="noopener noreferrer">
              caniemail: {warning.feature}
            </a>
          </p>
          <ul class={styles.clientSupport}>
            {entries
              .sort(([a, x], [b, y]) =>
                x === y ? (names.get(a) ?? a).localeCompare(names.get(b) ?? b) : x === 'no' ? -1 : y === 'no' ? 1 : x === 'partial' ? -1 : 1,
              )
              .map(([id, s]) => (
                <li key={id} class={SUPPORT_CLASS[s]} data-support={s}>
                  <span class={styles.supportMark}>{ignored && s === 'no' ? 'ignored' : SUPPORT_LABEL[s]}</span> {names.get(id) ?? id}
                  {warning.notes[id] ? (
                    <span class="muted small">
                      {' · '}
                      <NoteText text={warning.notes[id]} />
                    </span>
                  ) : null}
                </li>
              ))}
          </ul>
        </div>
      </details>
    </li>
  );
}

/** Compatibility warnings, errors (unsupported somewhere) first, each expandable to clients and lines. */
export function CompatibilityWarnings({ report, onLine, limit }: { report: CheckReport; onLine?: (line: number) => void; limit?: number }) {
  const html = report.html;
  const [all, setAll] = useState(false);
  if (!html) return null;
  const names = new Map(html.clients.map((c) => [c.id, c.name]));
  const groups: [string, CompatibilityWarning[]][] = [
    ['Not supported by some clients', html.warnings.filter((w) => w.severity === 'error')],
    ['Partly supported', html.warnings.filter((w) => w.severity === 'warning')],
  ];
  if (html.warnings.length === 0) return <p class={factClass('good')}>Every feature this email uses is supported by every client considered.</p>;
  let budget = limit !== undefined && !all ? limit : Number.POSITIVE_INFINITY;
  return (
    <div>
      {groups.map(([title, warnings]) => {
        if (warnings.length === 0 || budget <= 0) return null;
        const shown = warnings.slice(0, budget);
        budget -= shown.length;
        return (
          <section key={title} aria-label={title}>
            <h4>
              {title} <span class="muted">({warnings.length})</span>
            </h4>
            <ul class={styles.checkList}>
              {shown.map((w) => (
                <WarningItem key={w.feature} warning={w} names={names} onLine={onLine} />
              ))}
            </ul>
          </section>
        );
      })}
      {limit !== undefined && !all && html.warnings.length > limit ? (
        <button type="button" class="button ghost small" onClick={() => setAll(true)}>
          Show all {html.warnings.length}
        </button>
      ) : null}
    </div>
  );
}

/** Accessibility issues, each with its line. */
export function AccessibilityList({ report, onLine }: { report: CheckReport; onLine?: (line: number) => void }) {
  const issues = report.accessibility.issues;
  if (issues.length === 0) return <p class={factClass('good')}>No accessibility issues found.</p>;
  return (
    <ul class={styles.checkList}>
      {issues.map((issue, i) => (
        <li
          key={i}
          class={findingClass(issue.severity)}
          id={issues.findIndex((other) => other.rule === issue.rule) === i ? `finding-accessibility/${issue.rule}` : undefined}
        >
          <Badge tone={issue.severity === 'error' ? 'bad' : 'warn'}>{issue.rule}</Badge> {issue.message}{' '}
          {issue.line !== null ? <LineLinks lines={[issue.line]} onLine={onLine} /> : null}
        </li>
      ))}
    </ul>
  );
}

/** Dark-mode findings. */
export function DarkModeList({ report, onLine }: { report: CheckReport; onLine?: (line: number) => void }) {
  const dark = report.dark_mode;
  if (!dark) return null;
  if (dark.findings.length === 0) return <p class={factClass('good')}>Declares color-scheme and restyles its light backgrounds for dark mode.</p>;
  return (
    <ul class={styles.checkList}>
      {dark.findings.map((f, i) => (
        <li key={i} class={findingClass('warning')}>
          {f.message} {f.line !== null ? <LineLinks lines={[f.line]} onLine={onLine} /> : null}
        </li>
      ))}
    </ul>
  );
}
