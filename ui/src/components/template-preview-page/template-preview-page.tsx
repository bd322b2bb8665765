import { useEffect, useMemo, useState } from 'preact/hooks';
import { reason, sandbox } from '../../sandbox.ts';
import { useDebounced, useLoad } from '../../state/hooks.ts';
import { remembered, TEMPLATE_DRAFT_KEY } from '../../state/remembered.ts';
import type { CheckReport } from '../../types.ts';
import { ColorModeSwitch } from '../preview/color-mode.tsx';
import { previewPolicy } from '../../../../server/domain/mail/preview-policy.ts';
import { colorModeDocument, systemPrefersDark, type ColorMode } from '../preview/dark-preview.ts';
import { LiveCheck } from '../check/live-check.tsx';
import { PreviewFrame, WIDTHS, type PreviewWidth } from '../preview/preview-frame.tsx';
import styles from './template-preview-page.module.css';

const SAMPLE = `<h1>Welcome aboard, Ada!</h1>
<p>Thanks for signing up. Your account is ready.</p>
<p><a href="https://example.com/start" style="display:inline-block;padding:10px 18px;background:#4f46e5;color:#fff;border-radius:6px;text-decoration:none">Get started</a></p>
<p style="color:#6b7280;font-size:14px">If the button does not work, copy this link: https://example.com/start</p>`;

type Layout = 'side' | PreviewWidth;

/**
 * For designers: an HTML body, wrapped in the chosen sender's account template by the same
 * function the API uses, previewed at phone, tablet and desktop widths as they type.
 */
export function TemplatePreviewPage() {
  const senders = useLoad((signal) => sandbox.senders({ signal }), []);
  const [sender, setSender] = useState<string>('');
  const [html, setHtml] = useState(() => remembered.get(TEMPLATE_DRAFT_KEY) ?? SAMPLE);
  const [layout, setLayout] = useState<Layout>('side');
  const [wrapped, setWrapped] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [colorMode, setColorMode] = useState<ColorMode>(() => (systemPrefersDark() ? 'styles' : 'light'));
  const [check, setCheck] = useState<{ report: CheckReport | null; body: string | null; error: string | null }>({ report: null, body: null, error: null });
  const body = useDebounced(html, 250);

  const list = senders.data ?? [];
  const chosen = list.find((s) => s.id === sender) ?? list.find((s) => s.has_account_template) ?? list[0];

  useEffect(() => {
    remembered.set(TEMPLATE_DRAFT_KEY, body);
    if (!chosen) return;
    const controller = new AbortController();
    sandbox.preview(chosen.id, body, { signal: controller.signal }).then(
      (result) => {
        setWrapped(result);
        setProblem(null);
      },
      (error: Error) => !controller.signal.aborted && setProblem(reason(error)),
    );
    return () => controller.abort();
  }, [body, chosen?.id]);

  // The live check of what would be sent, after the same debounce; a newer draft aborts it.
  useEffect(() => {
    if (!chosen) return;
    const controller = new AbortController();
    sandbox.checkDraft({ html: body, sender: chosen.id }, { signal: controller.signal }).then(
      (report) => setCheck({ report, body, error: null }),
      (error: Error) => !controller.signal.aborted && setCheck((c) => ({ ...c, error: reason(error) })),
    );
    return () => controller.abort();
  }, [body, chosen?.id]);

  // As it is when the system gives the chosen mode; rewritten otherwise (see dark-preview.ts).
  const shown = useMemo(
    () =>
      wrapped === null || colorMode === (systemPrefersDark() ? 'styles' : 'light')
        ? wrapped
        : colorModeDocument(wrapped, colorMode, previewPolicy(location.origin, true, 'meta')),
    [wrapped, colorMode],
  );

  const previewsClass = layout === 'side' ? `${styles.tpPreviews} ${styles.layoutSide}` : styles.tpPreviews;
  return (
    <section class={`page ${styles.templatePage}`} aria-labelledby="tp-title">
      <header class="page-header">
        <h1 id="tp-title">Template preview</h1>
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
        <div class="segmented" role="group" aria-label="Preview layout">
          {([['side', 'Side by side'], ...WIDTHS.map((w) => [w.id, w.label] as const)] as const).map(([id, label]) => (
            <button type="button" key={id} aria-pressed={layout === id} onClick={() => setLayout(id)}>
              {label}
            </button>
          ))}
        </div>
        <ColorModeSwitch value={colorMode} onChange={setColorMode} />
      </header>
      {senders.error ? <p class="banner error">Could not load the senders: {reason(senders.error)}</p> : null}
      {chosen && !chosen.has_account_template ? (
        <p class="banner info small">{chosen.name} has no account template: the body is previewed as it is sent.</p>
      ) : null}
      <div class={layout === 'side' ? `${styles.tpLayout} ${styles.layoutSide}` : styles.tpLayout}>
        <div class={styles.tpSide}>
          <label class={styles.tpEditor}>
            <span class={styles.tpLabel}>HTML body</span>
            <textarea spellcheck={false} value={html} onInput={(e) => setHtml((e.target as HTMLTextAreaElement).value)} aria-label="HTML body" />
          </label>
          <LiveCheck short={layout === 'side'} report={check.report} pending={check.body !== html} error={check.error} />
        </div>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls and the frames in it take no focus; a keyboard scrolls it once it is focused (axe: scrollable-region-focusable). */}
        <div class={previewsClass} aria-live="off" role="region" aria-label="Previews" tabIndex={0}>
          {problem ? (
            <p class="banner error" role="alert">
              Preview failed: {problem}
            </p>
          ) : null}
          {wrapped === null ? (
            <p class="muted pad">Loading preview…</p>
          ) : layout === 'side' ? (
            WIDTHS.map((w) => (
              <figure key={w.id} class={w.id === 'desktop' ? `${styles.tpFigure} ${styles.tpDesktop}` : styles.tpFigure}>
                <figcaption>
                  {w.label} <span class="muted">{w.px ? `${w.px} px` : 'full width'}</span>
                </figcaption>
                <PreviewFrame
                  title={`Preview, ${w.label.toLowerCase()}`}
                  width={w.id}
                  srcDoc={shown!}
                  dark={colorMode === 'light' ? undefined : colorMode}
                  bare
                  gallery
                />
              </figure>
            ))
          ) : (
            <PreviewFrame title={`Preview, ${layout}`} width={layout} srcDoc={shown!} dark={colorMode === 'light' ? undefined : colorMode} bare />
          )}
        </div>
      </div>
    </section>
  );
}
