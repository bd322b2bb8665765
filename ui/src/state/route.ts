import { useEffect, useState } from 'preact/hooks';

/** The views, addressed by the URL hash so every server path but `/` stays the API's. */
export type Route = { page: 'inbox'; id: string | null } | { page: 'recipients' } | { page: 'subscriptions' } | { page: 'preview' };

function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  const message = /^\/m\/([^/]+)$/.exec(path);
  if (message) return { page: 'inbox', id: decodeURIComponent(message[1]!) };
  if (path === '/recipients') return { page: 'recipients' };
  if (path === '/subscriptions') return { page: 'subscriptions' };
  if (path === '/preview') return { page: 'preview' };
  return { page: 'inbox', id: null };
}

/** The message open right now, read from the URL (event handlers can run before a re-render). */
export function openMessageId(): string | null {
  const route = parseRoute(location.hash);
  return route.page === 'inbox' ? route.id : null;
}

export function messageHref(id: string): string {
  return `#/m/${encodeURIComponent(id)}`;
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

export function navigate(href: string): void {
  if (location.hash !== href) location.hash = href;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
