import { useEffect, useMemo, useState } from 'preact/hooks';
import { fullTime } from '../../format.ts';
import { reason, sandbox } from '../../sandbox.ts';
import { useLoad } from '../../state/hooks.ts';
import type { CheckReport } from '../../types.ts';
import { LiveCheck } from '../check/live-check.tsx';
import { ColorModeSwitch } from '../preview/color-mode.tsx';
import { previewPolicy } from '../../../../server/domain/mail/preview-policy.ts';
import { colorModeDocument, systemPrefersDark, type ColorMode } from '../preview/dark-preview.ts';
import { PreviewFrame, WidthSwitch, type PreviewWidth } from '../preview/preview-frame.tsx';
import styles from './account-template.module.css';

/**
 * The sender's newest 20 captures, each one's body as sent wrapped in the draft template (the
 * server's rewrap, the same wrapping a send does), at the chosen width and mode; the live check
 * of the one picked. `draft` null: nothing to wrap (the draft has no `{{content}}`).
 */
export function RewrapGallery({ sender, draft }: { sender: string; draft: string | null }) {
  const [width, setWidth] = useState<PreviewWidth>('phone');
  const [mode, setMode] = useState<ColorMode>(() => (systemPrefersDark() ? 'styles' : 'light'));
  const [picked, setPicked] = useState<string | null>(null);
  const rewrapped = useLoad((signal) => (draft === null ? Promise.resolve(null) : sandbox.rewrap(sender, { html: draft }, { signal })), [sender, draft]);
  const captures = rewrapped.data?.captures ?? [];
  const shown = captures.find((c) => c.id === picked && c.html !== null) ?? captures.find((c) => c.html !== null);
  const [check, setCheck] = useState<{ report: CheckReport | null; html: string | null; error: string | null }>({ report: null, html: null, error: null });
  useEffect(() => {
    const html = shown?.html;
    if (!html) return;
    const controller = new AbortController();
    sandbox.checkDraft({ html }, { signal: controller.signal }).then(
      (report) => setCheck({ report, html, error: null }),
      (error: Error) => !controller.signal.aborted && setCheck((c) => ({ ...c, error: reason(error) })),
    );
    return () => controller.abort();
  }, [shown?.html]);
  const policy = useMemo(() => previewPolicy(location.origin, false, 'meta'), []);

  return (
    <section class={styles.gallerySide} aria-labelledby="rewrap-title">
      <div class="part-toolbar">
        <h2 id="rewrap-title" class={styles.galleryTitle}>
          Newest captures in the draft
        </h2>
        <WidthSwitch value={width} onChange={setWidth} />
        <ColorModeSwitch value={mode} onChange={setMode} />
        <span class="muted small" role="status" data-testid="rewrap-count">
          {draft === null ? 'No {{content}}: nothing to wrap.' : rewrapped.loading ? 'Wrapping…' : `${captures.length} captures`}
        </span>
      </div>
      {rewrapped.error ? <p class="banner error">Could not re-wrap the captures: {reason(rewrapped.error)}</p> : null}
      {shown ? <LiveCheck short report={check.report} pending={check.html !== shown.html} error={check.error} /> : null}
      {draft !== null && !rewrapped.loading && captures.length === 0 ? (
        <p class="muted pad">This sender has no captures yet: send one through /v1 and it shows here.</p>
      ) : null}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls and the frames in it take no focus; a keyboard scrolls it once it is focused (axe: scrollable-region-focusable). */}
      <div class={styles.gallery} role="region" aria-label="Captures re-wrapped" tabIndex={0}>
        {captures.map((c) => (
          <figure key={c.id} class={c.id === shown?.id ? `${styles.figure} ${styles.picked}` : styles.figure} data-testid="rewrapped">
            <figcaption>
              <button type="button" class="link-button" onClick={() => setPicked(c.id)} aria-pressed={c.id === shown?.id} title="Check this one">
                {c.subject || '(no subject)'}
              </button>{' '}
              <span class="muted small">
                {fullTime(c.created_at)} · {c.template_version === null ? 'no template' : `was v${c.template_version}`}
              </span>
            </figcaption>
            {c.html === null ? (
              <p class="muted small pad">
                {c.unwrapped_body === 'not_kept' ? 'Captured before bodies were kept as sent: it cannot be re-wrapped.' : 'No HTML body.'}
              </p>
            ) : (
              <PreviewFrame
                title={`${c.subject || 'Capture'} in the draft`}
                width={width}
                srcDoc={colorModeDocument(c.html, mode, policy)}
                dark={mode === 'light' ? undefined : mode}
                bare
                gallery
              />
            )}
          </figure>
        ))}
      </div>
    </section>
  );
}
