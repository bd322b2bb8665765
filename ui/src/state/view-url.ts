/**
 * How a view is written in the URL, so a link reopens it as it was: the message's tab, the
 * preview's width, colour mode and client view, and which view of a comparison. They ride in
 * the hash's query (`#/m/<id>?tab=html&width=phone&mode=dark`): every server path but `/` stays
 * the API's. The width and mode names are the render URL's (`/preview/{id}?width=…&mode=…`).
 */

import type { ClientViewId } from '../../../client/pigeonhole-client.ts';

/** The preview's widths: phone (375 px), tablet (768 px), desktop (the pane's). */
export type PreviewWidth = 'phone' | 'tablet' | 'desktop';
export const WIDTH_NAMES: readonly PreviewWidth[] = ['phone', 'tablet', 'desktop'];

/** Light, dark with the email's own styles (Apple Mail), dark by inversion (Gmail apps, Outlook.com). */
export type ColorMode = 'light' | 'styles' | 'invert';

/** The system prefers dark: a plain frame would apply the email's dark styles. */
export function systemPrefersDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
}

const MESSAGE_TABS = ['html', 'text', 'headers', 'raw', 'attachments', 'record', 'check'] as const;
export type MessageTab = (typeof MESSAGE_TABS)[number];

/** The client views a URL may name (`GET /api/messages/{id}/render?client=`). */
const CLIENT_VIEWS: readonly ClientViewId[] = ['gmail-web', 'gmail-app', 'outlook-windows', 'outlook-com', 'apple-mail', 'yahoo', 'images-off'];

const COMPARE_VIEWS = ['side', 'diff', 'html', 'findings'] as const;
export type CompareView = (typeof COMPARE_VIEWS)[number];

/** What a URL may say about a view; what it leaves out, the page keeps as it is. */
export interface ViewParams {
  tab?: MessageTab;
  width?: PreviewWidth;
  mode?: ColorMode;
  /** A client view (the preview's client selector). */
  client?: ClientViewId;
  compare?: CompareView;
}

/** The URL's mode names, as the render URL has them, and the preview's. */
const MODE_NAMES: [string, ColorMode][] = [
  ['light', 'light'],
  ['dark', 'styles'],
  ['inverted', 'invert'],
];

function oneOf<T extends string>(value: string | null, allowed: readonly T[]): T | undefined {
  return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : undefined;
}

/** The view a hash's query names; unknown names and values are dropped, never an error. */
export function parseViewParams(query: string): ViewParams {
  const search = new URLSearchParams(query);
  const params: ViewParams = {};
  const tab = oneOf(search.get('tab'), MESSAGE_TABS);
  if (tab) params.tab = tab;
  const width = oneOf(search.get('width'), WIDTH_NAMES);
  if (width) params.width = width;
  const mode = MODE_NAMES.find(([name]) => name === search.get('mode'))?.[1];
  if (mode) params.mode = mode;
  const client = oneOf(search.get('client')?.trim() ?? null, CLIENT_VIEWS);
  if (client) params.client = client;
  const compare = oneOf(search.get('view'), COMPARE_VIEWS);
  if (compare) params.compare = compare;
  return params;
}

/** The hash query for a view (without the `?`), in a fixed order. */
function formatViewParams(params: ViewParams): string {
  const search = new URLSearchParams();
  if (params.tab) search.set('tab', params.tab);
  if (params.width) search.set('width', params.width);
  if (params.mode) search.set('mode', MODE_NAMES.find(([, mode]) => mode === params.mode)![0]);
  if (params.client) search.set('client', params.client);
  if (params.compare) search.set('view', params.compare);
  return search.toString();
}

/** The render URL's mode name for a preview mode (`/preview/{id}?mode=`). */
function modeName(mode: ColorMode): string {
  return MODE_NAMES.find(([, m]) => m === mode)![0];
}

/** Writes `path?query` into the hash without a new history entry and without a hashchange. */
export function replaceHash(path: string, params: ViewParams): void {
  const query = formatViewParams(params);
  const hash = `#${path}${query ? `?${query}` : ''}`;
  if (location.hash === hash) return;
  history.replaceState(history.state, '', `${location.pathname}${location.search}${hash}`);
}

/** The chrome-less render URL of a capture at a width and mode, as a client view or as sent (docs/inbox.md#the-render-url). */
export function renderUrl(id: string, width: PreviewWidth, mode: ColorMode, remote: boolean, client: ClientViewId | null = null): string {
  return `/preview/${encodeURIComponent(id)}?width=${width}&mode=${modeName(mode)}${client ? `&client=${client}` : ''}${remote ? '&remote=1' : ''}`;
}
