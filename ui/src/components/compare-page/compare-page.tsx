import { useEffect, useState } from 'preact/hooks';
import { fullTime } from '../../format.ts';
import { reason, sandbox } from '../../sandbox.ts';
import { useElementWidth, useLoad } from '../../state/hooks.ts';
import { compareHref, messageHref } from '../../state/route.ts';
import { replaceHash, type CompareView, type ViewParams } from '../../state/view-url.ts';
import type { MessageDetail } from '../../types.ts';
import { ColorModeSwitch } from '../preview/color-mode.tsx';
import { systemPrefersDark, type ColorMode } from '../preview/dark-preview.ts';
import { WIDTHS, WidthSwitch, type PreviewWidth } from '../preview/preview-frame.tsx';
import { ShareActions } from '../preview/share-actions.tsx';
import { useEmailDocument } from '../preview/use-email-document.ts';
import { FindingsDiff } from './findings-diff.tsx';
import { HtmlDiff } from './html-diff.tsx';
import { PixelDiff } from './pixel-diff.tsx';
import { SideBySide } from './side-by-side.tsx';
import styles from './compare-page.module.css';

const VIEWS: { id: CompareView; label: string }[] = [
  { id: 'side', label: 'Side by side' },
  { id: 'diff', label: 'Difference' },
  { id: 'html', label: 'HTML diff' },
  { id: 'findings', label: 'Findings' },
];

/** The width a desktop comparison is drawn at when the page gives no room to measure. */
const DESKTOP_PX = 1024;

/**
 * Two captures compared at one width and colour mode: side by side with their scrolling tied,
 * as a pixel difference, as a diff of their HTML and of their check findings. The URL holds the
 * pair, the view, the width and the mode.
 */
export function ComparePage({ a, b, view: asked }: { a: string; b: string; view: ViewParams }) {
  const [view, setView] = useState<CompareView>(asked.compare ?? 'side');
  const [width, setWidth] = useState<PreviewWidth>(asked.width ?? 'phone');
  const [mode, setMode] = useState<ColorMode>(asked.mode ?? (systemPrefersDark() ? 'styles' : 'light'));
  useEffect(() => {
    setView((v) => asked.compare ?? v);
    setWidth((w) => asked.width ?? w);
    setMode((m) => asked.mode ?? m);
  }, [asked]);
  // Written only while the URL is still this pair's (a link followed between the render and this effect stays followed).
  useEffect(() => {
    if (location.hash.split('?')[0] === compareHref(a, b)) replaceHash(compareHref(a, b).slice(1), { compare: view, width, mode });
  }, [a, b, view, width, mode]);

  const before = useLoad((signal) => sandbox.get(a, { signal }), [a]);
  const after = useLoad((signal) => sandbox.get(b, { signal }), [b]);
  const [paneRef, paneWidth] = useElementWidth();
  const fixed = WIDTHS.find((w) => w.id === width)?.px ?? null;
  // Side by side each email has half the page; the difference is drawn at one width for both.
  const sidePx = fixed ?? Math.max(0, Math.floor((paneWidth - 12) / 2));
  const drawPx = view === 'diff' ? (fixed ?? DESKTOP_PX) : sidePx;
  const docA = useEmailDocument(a, mode, false, drawPx);
  const docB = useEmailDocument(b, mode, false, drawPx);

  const failed = before.error ?? after.error;
  return (
    <section class={`page ${styles.comparePage}`} aria-labelledby="compare-title">
      <header class="page-header">
        <h1 id="compare-title">Compare</h1>
        <div class="segmented" role="group" aria-label="Comparison view">
          {VIEWS.map((v) => (
            <button type="button" key={v.id} aria-pressed={view === v.id} onClick={() => setView(v.id)}>
              {v.label}
            </button>
          ))}
        </div>
        {view === 'side' || view === 'diff' ? (
          <>
            <WidthSwitch value={width} onChange={setWidth} />
            <ColorModeSwitch value={mode} onChange={setMode} />
          </>
        ) : null}
        <ShareActions png={null} />
      </header>
      {failed ? <p class="banner error">Could not load a capture: {reason(failed)}</p> : null}
      <div class={styles.pair}>
        <Caption label="Before" message={before.data} />
        <Caption label="After" message={after.data} />
      </div>
      <div class={`${styles.body} print-preview`} ref={paneRef}>
        {view === 'side' ? <SideBySide width={width} mode={mode} a={docA} b={docB} /> : null}
        {view === 'diff' ? <PixelDiff a={docA.doc} b={docB.doc} px={drawPx} /> : null}
        {view === 'html' ? <HtmlDiff a={before.data?.html ?? null} b={after.data?.html ?? null} /> : null}
        {view === 'findings' ? <FindingsDiff a={a} b={b} /> : null}
      </div>
    </section>
  );
}

function Caption({ label, message }: { label: string; message: MessageDetail | undefined }) {
  return (
    <p class={styles.caption}>
      <span class={styles.captionLabel}>{label}</span>
      {message ? (
        <>
          <a href={messageHref(message.id)}>{message.subject || '(no subject)'}</a>{' '}
          <span class="muted small">
            {message.id} · {fullTime(message.created_at)}
            {message.template_version != null ? ` · template v${message.template_version}` : ''}
          </span>
        </>
      ) : (
        <span class="muted">Loading…</span>
      )}
    </p>
  );
}
