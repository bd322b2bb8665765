import { useEffect, useState } from 'preact/hooks';
import type { Page } from '../../../client/pigeonhole-client.ts';
import { useDebounced, useFrameTick, useLoad } from './hooks.ts';
import type { FrameListener } from './inbox.ts';

export interface PagedList<T extends Page> {
  /** What is typed in the page's search box. */
  search: string;
  setSearch: (text: string) => void;
  /** The search once typing pauses, trimmed: what the page asked the server for. */
  query: string;
  offset: number;
  setOffset: (offset: number) => void;
  limit: number;
  data: T | undefined;
  error: Error | null;
  /** Loads the page again now (after a change made here, without waiting for its frame). */
  reload: () => void;
}

/**
 * The state of a server-paged list page (recipients, subscriptions): a debounced search that
 * goes back to the first page, the page shown, and a reload when the server pushes one of
 * `reloadOn` (a burst counts once) or after an outage. A superseded load is aborted.
 */
export function usePagedList<T extends Page>(options: {
  source: { onFrame(listener: FrameListener): () => void };
  reloadOn: readonly string[];
  limit: number;
  load: (page: { query: string; offset: number; limit: number }, signal: AbortSignal) => Promise<T>;
}): PagedList<T> {
  const { limit } = options;
  const [search, setSearch] = useState('');
  const query = useDebounced(search, 200).trim();
  const [offset, setOffset] = useState(0);
  const tick = useFrameTick(options.source, options.reloadOn);
  const [reloads, setReloads] = useState(0);
  const result = useLoad((signal) => options.load({ query, offset, limit }, signal), [query, offset, limit, tick, reloads]);
  useEffect(() => setOffset(0), [query]);
  return { search, setSearch, query, offset, setOffset, limit, data: result.data, error: result.error, reload: () => setReloads((n) => n + 1) };
}
