import { useEffect, useState } from 'preact/hooks';
import type { ClientViewId } from '../../../client/pigeonhole-client.ts';
import { PREVIEW_WIDTH_KEY, remembered } from './remembered.ts';
import { openMessageId } from './route.ts';
import { replaceHash, systemPrefersDark, WIDTH_NAMES, type ColorMode, type MessageTab, type PreviewWidth, type ViewParams } from './view-url.ts';

/** How the open message is shown: it stays from one message to the next, and is in the URL. */
export interface MessageViewState {
  tab: MessageTab;
  width: PreviewWidth;
  mode: ColorMode;
  /** The client view of the HTML tab; null for the email as sent. */
  client: ClientViewId | null;
}

function fromParams(params: ViewParams, base: MessageViewState): MessageViewState {
  return {
    tab: params.tab ?? base.tab,
    width: params.width ?? base.width,
    mode: params.mode ?? base.mode,
    client: params.client ?? base.client,
  };
}

/**
 * The message view's state: what a link says first, else the width chosen last and the system's
 * colour scheme (dark styles apply on a dark system, as in Apple Mail). Every change is written
 * into the open message's URL, so copying the address bar or the copy-link button shares it.
 */
export function useMessageViewState(openId: string | null, params: ViewParams): [MessageViewState, (patch: Partial<MessageViewState>) => void] {
  const [state, setState] = useState<MessageViewState>(() =>
    fromParams(params, {
      tab: 'html',
      width: WIDTH_NAMES.find((w) => w === remembered.get(PREVIEW_WIDTH_KEY)) ?? 'desktop',
      mode: systemPrefersDark() ? 'styles' : 'light',
      client: null,
    }),
  );
  // A link opened on this page (a hashchange: the route is parsed anew) says how to show the message.
  useEffect(() => setState((s) => fromParams(params, s)), [params]);
  // Written only while the URL still names this message: effects run after the render, and a
  // key (↓, j) or a link may have opened the next one meanwhile; writing this render's message
  // back would take the user back to it (a browser test caught it, about 1 run in 10).
  useEffect(() => {
    if (openId !== null && openMessageId() === openId)
      replaceHash(`/m/${encodeURIComponent(openId)}`, { tab: state.tab, width: state.width, mode: state.mode, client: state.client ?? undefined });
  }, [openId, state, params]);
  const update = (patch: Partial<MessageViewState>) => {
    if (patch.width) remembered.set(PREVIEW_WIDTH_KEY, patch.width);
    setState((s) => ({ ...s, ...patch }));
  };
  return [state, update];
}
