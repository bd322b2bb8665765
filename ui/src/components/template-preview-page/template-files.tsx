import { useEffect, useMemo, useState } from 'preact/hooks';
import { reason, sandbox } from '../../sandbox.ts';
import { useElementWidth, useLoad } from '../../state/hooks.ts';
import type { Inbox } from '../../state/inbox.ts';
import type { Sender } from '../../types.ts';
import { ColorModeSwitch } from '../preview/color-mode.tsx';
import { previewPolicy } from '../../../../server/domain/mail/preview-policy.ts';
import { colorModeDocument, systemPrefersDark, type ColorMode } from '../preview/dark-preview.ts';
import { PreviewFrame, WIDTHS, WidthSwitch, type PreviewWidth } from '../preview/preview-frame.tsx';
import { useMeasuredHeight } from '../preview/use-email-document.ts';
import { SampleData } from './sample-data.tsx';
import styles from './template-files.module.css';

interface Props {
  chosen: Sender | undefined;
  inbox: Inbox;
  file: string | null;
  onFile: (name: string) => void;
}

/**
 * The `--templates` folder: each .html file, filled from its sample data and wrapped in the chosen
 * sender's account template, re-rendered as soon as the live push says it changed on disk. The
 * preview takes the email's whole height and the pane around it scrolls, so a re-render keeps
 * the place the designer was looking at.
 */
export function TemplateFiles({ chosen, inbox, file, onFile }: Props) {
  const [listTick, setListTick] = useState(0);
  const [fileTick, setFileTick] = useState(0);
  useEffect(
    () =>
      inbox.onFrame((frame) => {
        if (frame.type !== 'template_file.changed') return;
        setListTick((t) => t + 1);
        if (frame.data.name === file) setFileTick((t) => t + 1);
      }),
    [inbox, file],
  );
  const list = useLoad((signal) => sandbox.templateFiles({ signal }), [listTick]);
  const files = list.data?.files ?? [];
  const name = file ?? files[0]?.name ?? null;
  const loaded = useLoad(
    (signal) => (name === null ? Promise.resolve(null) : sandbox.templateFile(name, { sender: chosen?.has_account_template ? chosen.id : undefined, signal })),
    [name, chosen?.id, fileTick],
  );
  // The last rendering stays on screen while the next one loads.
  const [shown, setShown] = useState(loaded.data ?? null);
  useEffect(() => {
    if (loaded.data !== undefined) setShown(loaded.data);
  }, [loaded.data]);
  const [width, setWidth] = useState<PreviewWidth>('desktop');
  const [mode, setMode] = useState<ColorMode>(() => (systemPrefersDark() ? 'styles' : 'light'));
  const [stageRef, stageWidth] = useElementWidth();
  const doc = useMemo(() => (shown ? colorModeDocument(shown.rendered, mode, previewPolicy(location.origin, false, 'meta')) : null), [shown?.rendered, mode]);
  const height = useMeasuredHeight(doc, WIDTHS.find((w) => w.id === width)?.px ?? stageWidth);

  if (list.data && list.data.dir === null)
    return (
      <p class="banner info">
        No template folder: start Pigeonhole with <code>--templates &lt;dir&gt;</code> (or <code>PIGEONHOLE_TEMPLATES</code>) and each <code>.html</code> file
        in it shows here, re-rendered whenever it is saved.
      </p>
    );
  return (
    <div class={styles.files}>
      <nav class={styles.fileList} aria-label="Template files">
        <p class="muted small">{list.data?.dir ?? 'Loading…'}</p>
        {list.error ? <p class="banner error">Could not list the files: {reason(list.error)}</p> : null}
        {list.data && files.length === 0 ? <p class="muted">No .html files in the folder yet.</p> : null}
        <ul>
          {files.map((f) => (
            <li key={f.name}>
              <button type="button" class="link-button" aria-current={f.name === name ? 'true' : undefined} onClick={() => onFile(f.name)}>
                {f.name}
              </button>
            </li>
          ))}
        </ul>
        {list.data?.truncated ? <p class="muted small">The folder holds more files than are listed.</p> : null}
      </nav>
      <div class={styles.filePreview}>
        <div class="part-toolbar">
          <WidthSwitch value={width} onChange={setWidth} />
          <ColorModeSwitch value={mode} onChange={setMode} />
          <span class="muted small" role="status" data-testid="file-status">
            {shown ? `${shown.name}${shown.sender ? `, in ${shown.sender}’s template v${shown.template_version}` : ', not wrapped'}` : ''}
          </span>
        </div>
        {loaded.error ? <p class="banner error">Could not render the file: {reason(loaded.error)}</p> : null}
        {shown && shown.missing.length > 0 ? (
          <p class="banner warn small">No sample value for {shown.missing.map((v) => `{{${v}}}`).join(', ')}: left as it is.</p>
        ) : null}
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls and the frame in it takes no focus; a keyboard scrolls it once it is focused (axe: scrollable-region-focusable). */}
        <div class={`${styles.stage} print-preview`} ref={stageRef} role="region" aria-label="Rendered file" tabIndex={0} data-testid="file-stage">
          {doc ? (
            <PreviewFrame title={`Template file ${shown!.name}`} width={width} srcDoc={doc} dark={mode === 'light' ? undefined : mode} height={height} />
          ) : (
            <p class="muted pad">{name === null ? 'Pick a file.' : 'Rendering…'}</p>
          )}
        </div>
      </div>
      {shown ? <SampleData key={shown.name} file={shown} onSaved={() => setFileTick((t) => t + 1)} /> : null}
    </div>
  );
}
