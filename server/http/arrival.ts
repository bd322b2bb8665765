import type { Context } from 'koa';

/**
 * How the inbox and the login page tell the UI that another site opened them (issue 28 #7): a
 * link or `window.open` on any page can name a message (`#/m/<id>`), and opening a message marks
 * it read. The browser says who started a page load (`Sec-Fetch-Site`; the fragment it never
 * sends), so a load that another site started (`cross-site`, or `same-site`: another port of
 * the same host) is marked in the page, and the UI marks nothing read before the user's first
 * click or key press. A typed address or bookmark (`none`) and the inbox's own links
 * (`same-origin`) are trusted; a browser that sends no fetch metadata (plain HTTP on a LAN name)
 * cannot be told apart and is trusted as before.
 */
export function openedByAnotherSite(ctx: Context): boolean {
  const site = ctx.get('sec-fetch-site').toLowerCase();
  return site === 'cross-site' || site === 'same-site';
}

/** What the UI reads (ui/src/state/arrival.ts): in the inbox page's head, and in the login page's session storage. */
export const ARRIVAL_NAME = 'pigeonhole-arrival';
export const ARRIVAL_META = `<meta name="${ARRIVAL_NAME}" content="elsewhere">`;

/**
 * The inbox and the login page are their own browsing context group: a page of another site that
 * opens them gets a closed window, so it cannot count their frames (`w.length` told a message
 * view from the list: whether an id exists) or reach them at all. Browsers apply it on
 * potentially trustworthy origins (localhost, 127.0.0.1, HTTPS).
 */
export const OPENER_POLICY = 'same-origin';
