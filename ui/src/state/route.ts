import { useEffect, useState } from 'preact/hooks';
import { parseViewParams, type ViewParams } from './view-url.ts';

/**
 * The views, addressed by the URL hash so every server path but `/` stays the API's; the hash's
 * query says how the view is shown (view-url.ts).
 */
export type Route = (
  | { page: 'inbox'; id: string | null }
  | { page: 'compare'; a: string; b: string }
  | { page: 'recipients' }
  | { page: 'subscriptions' }
  | { page: 'preview'; query: string }
) & { view: ViewParams };

function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const view = parseViewParams(q < 0 ? '' : raw.slice(q + 1));
  const message = /^\/m\/([^/]+)$/.exec(path);
  if (message) return { page: 'inbox', id: decodeURIComponent(message[1]!), view };
  const compare = /^\/compare\/([^/]+)\/([^/]+)$/.exec(path);
  if (compare) return { page: 'compare', a: decodeURIComponent(compare[1]!), b: decodeURIComponent(compare[2]!), view };
  if (path === '/recipients') return { page: 'recipients', view };
  if (path === '/subscriptions') return { page: 'subscriptions', view };
  if (path === '/preview') return { page: 'preview', query: q < 0 ? '' : raw.slice(q + 1), view };
  return { page: 'inbox', id: null, view };
}

/** The message open right now, read from the URL (event handlers can run before a re-render). */
export function openMessageId(): string | null {
  const route = parseRoute(location.hash);
  return route.page === 'inbox' ? route.id : null;
}

export function messageHref(id: string): string {
  return `#/m/${encodeURIComponent(id)}`;
}

/** Two captures side by side (`a` the older or "before"). */
export function compareHref(a: string, b: string, query = ''): string {
  return `#/compare/${encodeURIComponent(a)}/${encodeURIComponent(b)}${query ? `?${query}` : ''}`;
}

/** The namespace the page was opened on (`/?namespace=t7f3k`: a test can print that link), or undefined. */
export function namespaceFromUrl(): string | undefined {
  return new URLSearchParams(location.search).get('namespace')?.trim() || undefined;
}

/** Keeps the namespace filter in the URL's query (the view stays in the hash), without a new history entry. */
export function showNamespaceInUrl(namespace: string | undefined): void {
  const url = new URL(location.href);
  if ((url.searchParams.get('namespace') ?? undefined) === namespace) return;
  if (namespace === undefined) url.searchParams.delete('namespace');
  else url.searchParams.set('namespace', namespace);
  history.replaceState(history.state, '', url);
}

/** Opens a view; a link to the view already open (its query aside) leaves the URL as it is. */
export function navigate(href: string): void {
  if (location.hash !== href && location.hash.split('?')[0] !== href) location.hash = href;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', onChange);
    // A hash changed between the first render and this effect (Preact runs effects after a
    // frame: a link followed while the page loads) fired before anyone listened: read it now.
    onChange();
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
