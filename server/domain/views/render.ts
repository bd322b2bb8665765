import { GMAIL_CLIP_BYTES } from '../check/size.ts';
import { colorModeHtml } from '../mail/color-mode.ts';
import { PROFILES, type ClientProfile, type Fidelity } from './clients.ts';
import type { SchemeQueries } from './css-filter.ts';
import { viewHtml } from './html-view.ts';
import { Removals, type Removal } from './removals.ts';

import type { ClientViewId, RenderMode } from './ids.ts';

export { CLIENT_VIEWS, type ClientViewId, RENDER_MODES, type RenderMode } from './ids.ts';
export type { Removal } from './removals.ts';

export interface ClientView {
  client: ClientViewId;
  name: string;
  /** How close the approximation is: high (few differences), medium, low (the client lays mail out another way). */
  fidelity: Fidelity;
  /** Always true: a view is an approximation from caniemail's data and a few rules, not a screenshot. */
  approximation: true;
  /** What this view does not simulate. */
  limits: string;
  mode: RenderMode;
  /** How dark was shown: the email's own dark styles, an inversion, or light (the client does neither). */
  dark: 'styles' | 'invert' | 'light' | null;
  html: string;
  removed: Removal[];
}

const CLIP_MARKER =
  '<div data-pigeonhole-clip style="margin:24px 0 0;padding:12px 16px;border-top:1px solid #dadce0;font:14px Arial,Helvetica,sans-serif;color:#5f6368;background:#fff">[Message clipped]&nbsp;&nbsp;<span style="color:#1a73e8;text-decoration:underline">View entire message</span></div>';

/**
 * An email's HTML as a client would show it, approximately: what caniemail's latest test of that
 * client marks unsupported is removed (declarations, selectors, at-rule blocks, elements,
 * attributes), plus Gmail's clip at 102 KB and the images-off view. Deterministic and offline;
 * linear in the HTML.
 */
export function renderClientView(html: string, client: ClientViewId, mode: RenderMode = 'light'): ClientView {
  const profile = PROFILES[client];
  const removals = new Removals(profile);
  const clip = profile.clips ? clipPoint(html) : null;
  const input = clip === null ? html : html.slice(0, clip);
  const scheme: SchemeQueries = mode === 'dark' && profile.dark !== 'none' ? 'dark' : 'light';
  const css = { removals, imagesOff: profile.imagesOff, scheme, lineAt: () => 1, darkApplied: false };
  const result = viewHtml(input, css);
  let out = result.html;
  if (clip !== null) {
    removals.other(
      'gmail-clip',
      'clip',
      `the HTML after byte ${GMAIL_CLIP_BYTES.toLocaleString('en')} (${kb(Buffer.byteLength(html.slice(clip), 'utf8'))} of ${kb(Buffer.byteLength(html, 'utf8'))})`,
      `Gmail clips the HTML of a message past ${GMAIL_CLIP_BYTES / 1024} KB and shows "[Message clipped]  View entire message" (a rule caniemail's data does not hold).`,
      'size/gmail_clipped',
      lineOf(html, clip),
    );
    out += result.open
      .slice()
      .reverse()
      .map((name) => `</${name}>`)
      .join('');
    out += CLIP_MARKER;
  }
  const dark = darkShown(mode, profile, css.darkApplied);
  // The inbox's own dark modes (color-mode.ts): an inversion, or the dark canvas a client gives an
  // email that offers dark (as the view left it: a color-scheme meta the client drops is not read).
  out = colorModeHtml(out, dark === 'invert' ? 'invert' : dark === 'styles' ? 'styles' : 'light');
  return {
    client,
    name: profile.name,
    fidelity: profile.fidelity,
    approximation: true,
    limits: profile.limits,
    mode,
    dark,
    html: out,
    removed: removals.list(),
  };
}

function darkShown(mode: RenderMode, profile: ClientProfile, darkApplied: boolean): ClientView['dark'] {
  if (mode === 'light') return null;
  if (mode === 'inverted') return 'invert';
  // A client that applies the email's dark styles when it has them, and inverts otherwise (Outlook.com).
  if (darkApplied) return 'styles';
  return profile.dark === 'invert' ? 'invert' : profile.dark === 'styles' ? 'styles' : 'light';
}

/** Where Gmail's clip cuts: the last tag start at or before the 102 KB mark; null when the HTML fits. */
function clipPoint(html: string): number | null {
  if (html.length <= GMAIL_CLIP_BYTES / 4 || Buffer.byteLength(html, 'utf8') <= GMAIL_CLIP_BYTES) return null;
  // The first GMAIL_CLIP_BYTES bytes, as characters (a character cut in half is left out).
  const head = Buffer.from(html, 'utf8').subarray(0, GMAIL_CLIP_BYTES).toString('utf8');
  let at = head.length;
  if (head.endsWith('\uFFFD') && html[at - 1] !== '\uFFFD') at--;
  const tag = html.lastIndexOf('<', at);
  return tag > 0 ? tag : at;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at >= 0 && at < offset; at = text.indexOf('\n', at + 1)) line++;
  return line;
}

function kb(bytes: number): string {
  return `${Math.round(bytes / 102.4) / 10} KB`;
}
