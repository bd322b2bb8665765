import { useEffect, useState } from 'preact/hooks';
import { reason, sandbox } from '../../sandbox.ts';
import { useLoad } from '../../state/hooks.ts';
import type { CheckPlatform, CheckReport, MessageDetail } from '../../types.ts';
import { AccessibilityList, CompatibilityWarnings, DarkModeList, factClass, findingClass, PlatformSwitch, Scores, SizeSummary } from './check-sections.tsx';
import { CopyForAi } from './copy-for-ai.tsx';
import { LinkCheck } from './link-check.tsx';
import { TemplateList } from './template-list.tsx';
import { SourceView } from './source-view.tsx';
import styles from './check-panel.module.css';
import sections from './check-sections.module.css';
import { Badge } from '../badges/badges.tsx';

/**
 * The Check tab: scores first, then what to fix, each with its lines in the HTML source.
 * `finding` (`compatibility/<slug>`, `size/gmail_clipped`, `accessibility/<rule>`) is opened and
 * scrolled to once the report is there: a client view's removal links to it.
 */
export function CheckPanel({ message, finding = null }: { message: MessageDetail; finding?: string | null }) {
  const [platform, setPlatform] = useState<CheckPlatform | 'all'>('all');
  const [line, setLine] = useState<number | null>(null);
  const [sourceOpen, setSourceOpen] = useState(false);
  const check = useLoad((signal) => sandbox.check(message.id, { platforms: platform === 'all' ? [] : [platform], signal }), [message.id, platform]);
  const report = check.data;
  const showLine = (n: number) => {
    setLine(n);
    setSourceOpen(true);
  };
  useEffect(() => {
    if (!report || finding === null) return;
    const target = document.getElementById(`finding-${finding}`);
    const details = target?.querySelector('details');
    if (details) details.open = true;
    target?.scrollIntoView({ block: 'center' });
  }, [report, finding]);

  return (
    <div class={sourceOpen && message.html ? `${styles.checkPanel} ${styles.withSource}` : styles.checkPanel}>
      <div class={styles.checkMain}>
        <div class="part-toolbar">
          <PlatformSwitch value={platform} onChange={setPlatform} />
          {message.html ? (
            <button type="button" class="button ghost small" onClick={() => setSourceOpen((o) => !o)}>
              {sourceOpen ? 'Hide source' : 'Show source'}
            </button>
          ) : null}
          {report ? <CopyForAi report={report} html={message.html} /> : null}
        </div>
        {check.error ? <p class="banner error">Could not check the message: {reason(check.error)}</p> : null}
        {!report ? (
          <p class="muted pad" role="status">
            Checking…
          </p>
        ) : (
          <Report report={report} onLine={showLine} id={message.id} />
        )}
      </div>
      {sourceOpen && message.html ? <SourceView html={message.html} line={line} onClose={() => setSourceOpen(false)} /> : null}
    </div>
  );
}

function Report({ report, onLine, id }: { report: CheckReport; onLine: (line: number) => void; id: string }) {
  return (
    <div class={sections.checkReport}>
      <Scores report={report} />
      <section aria-labelledby="check-size">
        <h3 id="check-size">Size</h3>
        <SizeSummary size={report.size} />
      </section>
      {report.html ? (
        <section aria-labelledby="check-compat">
          <h3 id="check-compat">Email clients</h3>
          <CompatibilityWarnings report={report} onLine={onLine} />
        </section>
      ) : null}
      {report.template.findings.length ? (
        <section aria-labelledby="check-template">
          <h3 id="check-template">Template</h3>
          <TemplateList report={report} onLine={onLine} />
        </section>
      ) : null}
      <section aria-labelledby="check-a11y">
        <h3 id="check-a11y">Accessibility</h3>
        <AccessibilityList report={report} onLine={onLine} />
      </section>
      {report.dark_mode ? (
        <section aria-labelledby="check-dark">
          <h3 id="check-dark">Dark mode</h3>
          <DarkModeList report={report} onLine={onLine} />
        </section>
      ) : null}
      {report.headers ? (
        <section aria-labelledby="check-headers">
          <h3 id="check-headers">Headers</h3>
          <ul class={sections.checkList}>
            {report.headers.findings.map((f, i) => (
              <li key={i} class={findingClass(f.status)}>
                <Badge tone={f.status === 'ok' ? 'good' : f.status === 'warning' ? 'warn' : 'bad'}>{f.header}</Badge> {f.message}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="check-spam">
        <h3 id="check-spam">Spam score</h3>
        {report.spam ? (
          <>
            <p class={factClass(report.spam.is_spam ? 'bad' : 'good')}>
              SpamAssassin: <strong>{report.spam.score}</strong> (spam at {report.spam.threshold})
              {report.spam.is_spam ? ': this would be marked as spam.' : '.'}
            </p>
            <table class="kv">
              <tbody>
                {report.spam.rules.map((r) => (
                  <tr key={r.name}>
                    <th scope="row">{r.score}</th>
                    <td>
                      <code>{r.name}</code> {r.description}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ) : (
          <p class="muted small">{report.spam_note}</p>
        )}
      </section>
      <section aria-labelledby="check-links">
        <h3 id="check-links">Links</h3>
        <LinkCheck id={id} />
      </section>
    </div>
  );
}
