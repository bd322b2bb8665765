/** The Templates page's part of the URL: `#/preview?section=account&sender=acme-main&file=…&from=<capture id>`. */
export type TemplatesSection = 'body' | 'account' | 'files';

export interface TemplatesQuery {
  section?: TemplatesSection;
  sender?: string;
  file?: string;
  /** A capture opened with "Open in Templates": its body as sent is the draft. */
  from?: string;
}

const SECTIONS: readonly TemplatesSection[] = ['body', 'account', 'files'];

export function readTemplatesQuery(query: string): TemplatesQuery {
  const search = new URLSearchParams(query);
  const section = search.get('section');
  return {
    section: SECTIONS.find((s) => s === section),
    sender: search.get('sender') || undefined,
    file: search.get('file') || undefined,
    from: search.get('from') || undefined,
  };
}

/**
 * Writes the page's state into the hash without a new history entry, while the hash is still the
 * Templates page's: a write that lands after the user followed a link elsewhere (the senders
 * load after the page opens) must not put the Templates page's address back.
 */
export function writeTemplatesQuery(query: TemplatesQuery): void {
  if (!location.hash.startsWith('#/preview')) return;
  const search = new URLSearchParams();
  for (const key of ['section', 'sender', 'file', 'from'] as const) {
    const value = query[key];
    if (value) search.set(key, value);
  }
  const hash = `#/preview${search.size ? `?${search}` : ''}`;
  if (location.hash !== hash) history.replaceState(history.state, '', `${location.pathname}${location.search}${hash}`);
}

/** The Templates page with a capture's body as sent as the draft. */
export function openInTemplatesHref(id: string): string {
  return `#/preview?section=body&from=${encodeURIComponent(id)}`;
}
