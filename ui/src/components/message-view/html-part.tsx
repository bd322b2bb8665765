import { useState } from 'preact/hooks';
import { htmlUrl } from '../../sandbox.ts';
import { useElementWidth } from '../../state/hooks.ts';
import type { MessageViewState } from '../../state/message-view-state.ts';
import { renderUrl } from '../../state/view-url.ts';
import type { MessageDetail } from '../../types.ts';
import { ClientSelect } from '../client-view/client-select.tsx';
import { ClientViewPreview } from '../client-view/client-view.tsx';
import { ColorModeSwitch } from '../preview/color-mode.tsx';
import type { ColorMode } from '../preview/dark-preview.ts';
import { PreviewFrame, WIDTHS, WidthSwitch } from '../preview/preview-frame.tsx';
import { ShareActions } from '../preview/share-actions.tsx';
import { useEmailDocument } from '../preview/use-email-document.ts';
import { openInTemplatesHref } from '../template-preview-page/templates-query.ts';
import { CompareLinks } from './compare-links.tsx';

interface Props {
  message: MessageDetail;
  view: MessageViewState;
  onView: (patch: Partial<MessageViewState>) => void;
  /** A client view's removal links to its check finding: open it in the Check tab. */
  onFinding: (finding: string) => void;
}

/** The HTML tab: the preview at the chosen width and colour mode, and what can be done with it. */
export function HtmlPart({ message, view, onView, onFinding }: Props) {
  const [remote, setRemote] = useState(false);
  // As sent, or as one email client would show it (GET /api/messages/{id}/render); in the URL like the width and mode.
  const client = view.client;
  const mode = view.mode;
  // Every mode is the server's page, rewritten there for the mode, under its policy header
  // (issue 28: a policy placed in the markup can be placed where the browser does not read it).
  const previewUrl = htmlUrl(message.id, remote, mode);
  const [stageRef, stageWidth] = useElementWidth();
  const px = WIDTHS.find((w) => w.id === view.width)?.px ?? stageWidth;
  const email = useEmailDocument(message.id, mode, remote, px);
  const dark = mode === 'light' ? undefined : mode;
  return (
    <>
      <div class="part-toolbar">
        <WidthSwitch value={view.width} onChange={(width) => onView({ width })} />
        <ColorModeSwitch value={mode} onChange={(m) => onView({ mode: m })} />
        <ClientSelect value={client} onChange={(c) => onView({ client: c })} />
        <label class="toggle">
          <input type="checkbox" checked={remote} onChange={(e) => setRemote((e.target as HTMLInputElement).checked)} />
          Load remote content
        </label>
        <div class="toolbar-actions">
          <a
            class="button ghost small"
            href={renderUrl(message.id, view.width, mode, remote, client)}
            target="_blank"
            rel="noopener noreferrer"
            title="The email alone at this width, mode and client view (the render URL)"
          >
            Open in new tab
          </a>
          <ShareActions png={email.doc === null ? null : { doc: email.doc, width: px, name: `${message.id}-${view.width}-${mode}` }} />
          <CompareLinks message={message} />
          <a class="button ghost small" href={openInTemplatesHref(message.id)} title="Its body as sent, as the Templates page's draft">
            Open in Templates
          </a>
          <span class="muted small toolbar-note" title="Images, styles and fonts from the web: blocked until Load remote content is ticked">
            {message.has_remote_content === false ? 'No remote content in this email' : remote ? 'Remote content loaded' : 'Remote content blocked'}
          </span>
        </div>
      </div>
      <div class="print-preview" ref={stageRef}>
        {client ? (
          <ClientViewPreview id={message.id} client={client} colorMode={mode} width={view.width} remote={remote} onFinding={onFinding} />
        ) : (
          <PreviewFrame title={previewTitle(mode)} width={view.width} src={previewUrl} dark={dark} height={email.height} />
        )}
      </div>
    </>
  );
}

function previewTitle(mode: ColorMode): string {
  return mode === 'light' ? 'HTML preview' : `HTML preview, ${mode === 'styles' ? "dark (the email's own styles)" : 'dark (inverted)'}`;
}
