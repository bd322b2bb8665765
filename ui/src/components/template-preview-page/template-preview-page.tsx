import { useEffect, useState } from 'preact/hooks';
import { reason, sandbox } from '../../sandbox.ts';
import { useLoad } from '../../state/hooks.ts';
import type { Inbox } from '../../state/inbox.ts';
import { AccountTemplate } from './account-template.tsx';
import { BodyDraft } from './body-draft.tsx';
import { TemplateFiles } from './template-files.tsx';
import { readTemplatesQuery, writeTemplatesQuery, type TemplatesSection } from './templates-query.ts';
import styles from './template-preview-page.module.css';

const SECTIONS: { id: TemplatesSection; label: string }[] = [
  { id: 'body', label: 'Body draft' },
  { id: 'account', label: 'Account template' },
  { id: 'files', label: 'Files' },
];

/**
 * The designer's workbench: a body draft wrapped in a sender's account template, that account
 * template edited and saved in versions with its captures re-wrapped, and the `--templates`
 * files re-rendered as they are saved. The section, sender, file and opened capture are in the URL.
 */
export function TemplatePreviewPage({ inbox, query }: { inbox: Inbox; query: string }) {
  const asked = readTemplatesQuery(query);
  const senders = useLoad((signal) => sandbox.senders({ signal }), []);
  const [section, setSection] = useState<TemplatesSection>(asked.section ?? 'body');
  const [sender, setSender] = useState<string>(asked.sender ?? '');
  const [file, setFile] = useState<string | null>(asked.file ?? null);
  // "Open in Templates": a capture's body as sent becomes the draft, with its sender chosen.
  const opened = useLoad((signal) => (asked.from ? sandbox.get(asked.from, { signal }) : Promise.resolve(null)), [asked.from]);
  useEffect(() => {
    if (opened.data?.sender && !asked.sender) setSender(opened.data.sender);
  }, [opened.data]);

  const list = senders.data ?? [];
  const chosen = list.find((s) => s.id === sender) ?? list.find((s) => s.has_account_template) ?? list[0];
  useEffect(
    () => writeTemplatesQuery({ section, sender: chosen?.id, file: section === 'files' ? (file ?? undefined) : undefined, from: asked.from }),
    [section, chosen?.id, file, asked.from],
  );
  const initial = opened.data ? (opened.data.unwrapped_html ?? opened.data.html ?? '') : null;

  return (
    <section class={`page ${styles.templatePage}`} aria-labelledby="tp-title">
      <header class="page-header">
        <h1 id="tp-title">Templates</h1>
        <div class="segmented" role="group" aria-label="Templates section">
          {SECTIONS.map((s) => (
            <button type="button" key={s.id} aria-pressed={section === s.id} onClick={() => setSection(s.id)}>
              {s.label}
            </button>
          ))}
        </div>
        <label class="inline-field">
          <span>Sender</span>
          <select value={chosen?.id ?? ''} onChange={(e) => setSender((e.target as HTMLSelectElement).value)} aria-label="Sender">
            {list.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name} ({s.team_name}){s.has_account_template ? '' : ' · no account template'}
              </option>
            ))}
          </select>
        </label>
      </header>
      {senders.error ? <p class="banner error">Could not load the senders: {reason(senders.error)}</p> : null}
      {opened.error ? <p class="banner error">Could not open the capture: {reason(opened.error)}</p> : null}
      {opened.data && section === 'body' ? (
        <p class="banner info small" data-testid="opened-capture">
          {opened.data.unwrapped_body === 'not_kept'
            ? `“${opened.data.subject}” was captured before Pigeonhole kept bodies as sent: it has no unwrapped body, so its wrapped HTML is the draft.`
            : `The body of “${opened.data.subject}” as it was sent, before the account template wrapped it.`}
        </p>
      ) : null}
      {section === 'body' ? <BodyDraft chosen={chosen} initial={initial} /> : null}
      {section === 'account' && chosen ? <AccountTemplate key={chosen.id} sender={chosen} inbox={inbox} /> : null}
      {section === 'files' ? <TemplateFiles chosen={chosen} inbox={inbox} file={file} onFile={setFile} /> : null}
    </section>
  );
}
