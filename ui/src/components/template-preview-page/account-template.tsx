import { useEffect, useState } from 'preact/hooks';
import { fullTime } from '../../format.ts';
import { sandbox } from '../../sandbox.ts';
import { useDebounced, useLoad } from '../../state/hooks.ts';
import type { Inbox } from '../../state/inbox.ts';
import type { Sender } from '../../types.ts';
import { Badge } from '../badges/badges.tsx';
import { CodeEditor } from '../code-editor/code-editor.tsx';
import { useNotices } from '../notices/notices.tsx';
import { RewrapGallery } from './rewrap-gallery.tsx';
import styles from './account-template.module.css';

const CONTENT = '{{content}}';

/**
 * A sender's account template in a code editor: the draft is checked for `{{content}}`, shown
 * around the sender's newest captures (their bodies as sent) before it is saved, and saved as a
 * new version that wraps the next send. Any version, or the configured one, can be put back.
 */
export function AccountTemplate({ sender, inbox }: { sender: Sender; inbox: Inbox }) {
  const notices = useNotices();
  const [tick, setTick] = useState(0);
  // A save or revert from anywhere (the API, another tab) reloads the versions.
  useEffect(() => inbox.onFrame((frame) => frame.type === 'template.changed' && frame.data.sender === sender.id && setTick((t) => t + 1)), [inbox, sender.id]);
  const versions = useLoad((signal) => sandbox.templateVersions(sender.id, { signal }), [sender.id, tick]);
  const inUse = versions.data?.versions.find((v) => v.current);
  const [draft, setDraft] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (draft === null && inUse) setDraft(inUse.html ?? CONTENT);
  }, [inUse]);
  const settled = useDebounced(draft, 300);

  const act = async (key: string, failure: string, run: () => Promise<{ html: string | null; version: number }>) => {
    setBusy(true);
    try {
      const result = await run();
      notices.succeeded(key);
      setDraft(result.html ?? CONTENT);
      setTick((t) => t + 1);
    } catch (error) {
      notices.fail(key, failure, error);
    } finally {
      setBusy(false);
    }
  };
  const missing = draft !== null && !draft.includes(CONTENT);
  const unchanged = draft === (inUse?.html ?? CONTENT);

  return (
    <div class={styles.accountTemplate}>
      <div class={styles.editorSide}>
        <div class="part-toolbar">
          <button
            type="button"
            class="button primary"
            disabled={busy || draft === null || missing || unchanged}
            onClick={() => void act('template-save', 'Could not save the template.', () => sandbox.saveTemplate(sender.id, draft!))}
          >
            Save as new version
          </button>
          <button
            type="button"
            class="button ghost"
            disabled={busy || versions.data?.current === 0}
            onClick={() => void act('template-revert', 'Could not revert the template.', () => sandbox.revertTemplate(sender.id))}
          >
            Revert to configured
          </button>
          <span class="muted small" role="status" data-testid="template-in-use">
            {inUse ? `Version ${inUse.version} in use${inUse.version === 0 ? ' (the configuration file’s)' : ''}` : 'Loading…'}
            {unchanged ? '' : ' · draft not saved'}
          </span>
        </div>
        {missing ? (
          <p class="banner error" role="alert">
            The template has no <code>{CONTENT}</code>: the body of every email would be lost. Put <code>{CONTENT}</code> where the body goes.
          </p>
        ) : null}
        {draft === null ? (
          <p class="muted pad">Loading the template…</p>
        ) : (
          <CodeEditor value={draft} onChange={setDraft} language="html" label="Account template" class={styles.code} />
        )}
        <section aria-labelledby="versions-title" class={styles.versions}>
          <h2 id="versions-title">Versions</h2>
          <ol>
            {(versions.data?.versions ?? []).map((v) => (
              <li key={v.version} data-testid={`template-version-${v.version}`}>
                <span>
                  <strong>{v.version === 0 ? 'Configured (0)' : `Version ${v.version}`}</strong>{' '}
                  <span class="muted small">{v.saved_at ? fullTime(v.saved_at) : 'from the configuration file'}</span>
                </span>
                {v.current ? <Badge tone="good">in use</Badge> : null}
                <span class={styles.versionActions}>
                  <button type="button" class="button ghost small" onClick={() => setDraft(v.html ?? CONTENT)} disabled={busy}>
                    Edit
                  </button>
                  <button
                    type="button"
                    class="button ghost small"
                    disabled={busy || v.current}
                    onClick={() => void act('template-revert', 'Could not revert the template.', () => sandbox.revertTemplate(sender.id, v.version))}
                    aria-label={`Use version ${v.version}`}
                  >
                    Use
                  </button>
                </span>
              </li>
            ))}
          </ol>
        </section>
      </div>
      {settled === null ? null : <RewrapGallery sender={sender.id} draft={missing ? null : settled} />}
    </div>
  );
}
