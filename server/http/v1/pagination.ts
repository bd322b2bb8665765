import type { Context } from 'koa';
import { detail } from '../errors.ts';

/** Page size of every paginated /v1 list (api-contract.md §3, sandbox decision). */
export const PAGE_SIZE = 20;

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/**
 * Page-number pagination as the real service's framework does it: `page` from 1 (or "last"),
 * absolute next/previous links that keep the other query parameters, previous of page 2
 * without a page parameter, and 404 "Invalid page." outside the range.
 */
export function paginate<T, R>(ctx: Context, items: readonly T[], render: (item: T) => R): Page<R> {
  const pages = Math.max(1, Math.ceil(items.length / PAGE_SIZE));
  const raw = ctx.URL.searchParams.get('page');
  let page = 1;
  if (raw !== null && raw !== '') {
    if (raw === 'last') page = pages;
    else if (/^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= pages) page = Number(raw);
    else throw detail(404, 'Invalid page.');
  }
  const start = (page - 1) * PAGE_SIZE;
  return {
    count: items.length,
    next: page < pages ? link(ctx, page + 1) : null,
    previous: page > 1 ? link(ctx, page - 1) : null,
    results: items.slice(start, start + PAGE_SIZE).map(render),
  };
}

function link(ctx: Context, page: number): string {
  const url = new URL(ctx.originalUrl, `${ctx.protocol}://${ctx.host}`);
  if (page === 1) url.searchParams.delete('page');
  else url.searchParams.set('page', String(page));
  return url.toString();
}
