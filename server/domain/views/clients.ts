import data from '../check/caniemail-data.json' with { type: 'json' };

import type { ClientViewId } from './ids.ts';

export type Fidelity = 'high' | 'medium' | 'low';

/** What a client does in dark mode: applies the email's own dark styles, inverts its colours, or neither. */
type DarkBehaviour = 'styles' | 'invert' | 'none';

export interface ClientProfile {
  id: ClientViewId;
  name: string;
  /** caniemail's `family.platform` whose latest test drives the view; null for images off. */
  caniemail: string | null;
  fidelity: Fidelity;
  /** What the approximation leaves out, said plainly. */
  limits: string;
  dark: DarkBehaviour;
  /** Gmail clips the HTML past 102 KB. */
  clips: boolean;
  /** Images are blocked: each shows its alt text in its box. */
  imagesOff: boolean;
}

export const PROFILES: Record<ClientViewId, ClientProfile> = {
  'gmail-web': {
    id: 'gmail-web',
    name: 'Gmail (web)',
    caniemail: 'gmail.desktop-webmail',
    fidelity: 'medium',
    limits:
      'CSS, at-rules and elements caniemail marks unsupported are removed, <style> inside <body> is dropped, <body> becomes a <div>, and the HTML is clipped at 102 KB. Gmail also renames classes and ids, drops a whole <style> with one rule it rejects, and applies its own font and link styles: none of that is simulated.',
    dark: 'none',
    clips: true,
    imagesOff: false,
  },
  'gmail-app': {
    id: 'gmail-app',
    name: 'Gmail (app, Android)',
    caniemail: 'gmail.android',
    fidelity: 'medium',
    limits:
      'As Gmail (web), with a Google account, for the Android app; dark mode is shown as a full inversion. The iOS app, non-Google accounts and the app’s own resizing of wide emails are not simulated.',
    dark: 'invert',
    clips: true,
    imagesOff: false,
  },
  'outlook-windows': {
    id: 'outlook-windows',
    name: 'Outlook (Windows, 2019)',
    caniemail: 'outlook.windows',
    fidelity: 'low',
    limits:
      "Outlook for Windows lays mail out with Word, not a browser: removing what caniemail marks unsupported shows what is lost (flex, grid, background images, max-width, border-radius...), but not Word's table, spacing and image-size rules, VML or conditional comments. Check the real client before sending.",
    dark: 'invert',
    clips: false,
    imagesOff: false,
  },
  'outlook-com': {
    id: 'outlook-com',
    name: 'Outlook.com',
    caniemail: 'outlook.outlook-com',
    fidelity: 'medium',
    limits:
      'CSS, at-rules and elements caniemail marks unsupported are removed. Outlook.com also prefixes classes and ids and rewrites some colours in dark mode (shown here as a full inversion): not simulated.',
    dark: 'invert',
    clips: false,
    imagesOff: false,
  },
  'apple-mail': {
    id: 'apple-mail',
    name: 'Apple Mail (macOS)',
    caniemail: 'apple-mail.macos',
    fidelity: 'high',
    limits:
      'Apple Mail is WebKit: it supports nearly everything the preview does, so this view differs from the plain preview only where caniemail says so. Dark mode applies the email’s own dark styles.',
    dark: 'styles',
    clips: false,
    imagesOff: false,
  },
  yahoo: {
    id: 'yahoo',
    name: 'Yahoo Mail (web)',
    caniemail: 'yahoo.desktop-webmail',
    fidelity: 'medium',
    limits: 'CSS, at-rules and elements caniemail marks unsupported are removed. Yahoo also prefixes classes and rewrites some media queries: not simulated.',
    dark: 'none',
    clips: false,
    imagesOff: false,
  },
  'images-off': {
    id: 'images-off',
    name: 'Images off',
    caniemail: null,
    fidelity: 'high',
    limits:
      'Every image (img, background images, background attributes) is blocked, as Outlook and many companies do by default; each <img> shows its alt text in a box of its size. How a real client draws a blocked image differs (some show nothing, some a placeholder icon).',
    dark: 'styles',
    clips: false,
    imagesOff: true,
  },
};

type Support = 'yes' | 'partial' | 'no';

interface Feature {
  title: string;
  url: string;
  stats: Record<string, Record<string, Record<string, string>>>;
  notes: Record<string, string>;
}

const FEATURES = (data as unknown as { features: Record<string, Feature> }).features;

/** A client's support for one feature, by its most recent test in the data (as the check takes it). */
export interface ClientSupport {
  support: Support;
  /** The version or date of that test (`2019`, `2020-02`). */
  tested: string;
  notes: string[];
}

/** `family.platform`'s latest test of a feature, or null when the data has none. */
export function latestSupport(caniemail: string, slug: string): ClientSupport | null {
  const feature = FEATURES[slug];
  if (!feature) return null;
  const dot = caniemail.indexOf('.');
  const versions = feature.stats[caniemail.slice(0, dot)]?.[caniemail.slice(dot + 1)];
  if (!versions) return null;
  const tested = Object.keys(versions).at(-1);
  if (tested === undefined) return null;
  const value = versions[tested]!.trim();
  const code = value[0];
  const support: Support | null = code === 'y' ? 'yes' : code === 'n' ? 'no' : code === 'a' ? 'partial' : null;
  if (support === null) return null;
  const notes: string[] = [];
  for (const part of value.split(/\s+/)) if (part.startsWith('#') && feature.notes[part.slice(1)]) notes.push(feature.notes[part.slice(1)]!);
  return { support, tested, notes };
}

/** A feature's title and caniemail page. */
export function featureInfo(slug: string): { title: string; url: string } {
  const feature = FEATURES[slug];
  return { title: feature?.title ?? slug, url: feature?.url ?? '' };
}
