import type { ClientView, ClientViewId, RenderMode, ViewRemoval } from '../../../../client/pigeonhole-client.ts';
import { plural } from '../../format.ts';
import { htmlUrl, reason, sandbox } from '../../sandbox.ts';
import { useLoad } from '../../state/hooks.ts';
import { Badge } from '../badges/badges.tsx';
import type { ColorMode } from '../preview/dark-preview.ts';
import { PreviewFrame, type PreviewWidth } from '../preview/preview-frame.tsx';
import styles from './client-view.module.css';

const MODE: Record<ColorMode, RenderMode> = { light: 'light', styles: 'dark', invert: 'inverted' };
const FIDELITY_TONE = { high: 'good', medium: 'warn', low: 'bad' } as const;
const RULE_LABEL: Record<ViewRemoval['rule'], string> = {
  caniemail: 'caniemail: not supported',
  'caniemail-note': 'caniemail: partial, per its note',
  'gmail-clip': "Gmail's clip",
  'images-off': 'images off',
};

interface Props {
  id: string;
  client: ClientViewId;
  colorMode: ColorMode;
  width: PreviewWidth;
  remote: boolean;
  /** Opens the check finding a removal answers to (`compatibility/<slug>`, `size/gmail_clipped`, ...). */
  onFinding: (finding: string) => void;
}

/**
 * The email as one client would show it: the server's preview page of the view
 * (`/html?client=`), in the same sandboxed frame and under the same policy header as every
 * preview, labelled an approximation with its fidelity, and what was removed by which rule
 * (GET /api/messages/{id}/render).
 */
export function ClientViewPreview({ id, client, colorMode, width, remote, onFinding }: Props) {
  const view = useLoad((signal) => sandbox.render(id, client, { mode: MODE[colorMode], signal }), [id, client, colorMode]);
  if (view.error) return <p class="banner error">Could not show this client view: {reason(view.error)}</p>;
  if (!view.data) return <p class="muted pad">Loading…</p>;
  const data = view.data;
  return (
    <>
      <ViewNote view={data} onFinding={onFinding} />
      <PreviewFrame
        key={`client-${client}`}
        title={`HTML preview as ${data.name} (approximation)`}
        width={width}
        src={htmlUrl(id, remote, colorMode, client)}
        dark={data.dark === 'styles' ? 'styles' : data.dark === 'invert' ? 'invert' : undefined}
      />
    </>
  );
}

function ViewNote({ view, onFinding }: { view: ClientView; onFinding: (finding: string) => void }) {
  const total = view.removed.reduce((sum, r) => sum + r.count, 0);
  return (
    <div class={styles.viewNote} data-testid="client-view-note">
      <Badge tone={FIDELITY_TONE[view.fidelity]} title={view.limits}>
        Approximation · {view.fidelity} fidelity
      </Badge>
      <span class={styles.fidelity}>{view.name}</span>
      <span class="muted">{darkNote(view)}</span>
      <details class={styles.removals}>
        <summary data-testid="client-view-removed">
          {view.removed.length === 0 ? 'Nothing removed' : `${plural(total, 'removal')} of ${plural(view.removed.length, 'kind')}`} · what this view does not
          simulate
        </summary>
        <p class="muted small">{view.limits}</p>
        {view.removed.length ? (
          <ul class={styles.removalList}>
            {view.removed.map((r) => (
              <li key={`${r.rule}${r.feature}${r.what}`}>
                <code>{r.what}</code>
                {r.count > 1 ? <span class="muted"> ×{r.count}</span> : null} <span class="muted small">({RULE_LABEL[r.rule]})</span>
                <div class="small">
                  {r.reason}
                  {r.lines.length ? (
                    <span class="muted">
                      {' '}
                      Line{r.lines.length > 1 ? 's' : ''} {lines(r.lines)}.
                    </span>
                  ) : null}{' '}
                  {r.finding ? (
                    <button type="button" class="link-button" onClick={() => onFinding(r.finding!)}>
                      See the check finding
                    </button>
                  ) : null}
                  {r.url ? (
                    <>
                      {' · '}
                      <a href={r.url} target="_blank" rel="noopener noreferrer">
                        caniemail
                      </a>
                    </>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        ) : null}
      </details>
    </div>
  );
}

function darkNote(view: ClientView): string {
  if (view.dark === null) return '';
  if (view.dark === 'styles') return "dark: the email's own dark styles";
  if (view.dark === 'invert') return view.mode === 'inverted' ? 'dark: forced inversion' : 'dark: this client inverts colours';
  return 'dark: this client shows the email as in light mode';
}

function lines(list: readonly number[]): string {
  return list.length > 8 ? `${list.slice(0, 8).join(', ')} and ${list.length - 8} more` : list.join(', ');
}
