import type { Context } from 'koa';
import type { PageOf } from '../../domain/paging.ts';
import { INVALID_PAGE } from '../../service-texts.ts';
import { detail } from '../errors.ts';

/** Page size of every paginated /v1 list (docs/api-contract.md §3, sandbox decision). */
const PAGE_SIZE = 20;

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/**
 * Page-number pagination as the real service's framework does it: `page` from 1 (or "last"),
 * absolute next/previous links that keep the other query parameters, previous of page 2
 * without a page parameter, and 404 "Invalid page." outside the range. `fetch` returns one
 * page and the total, so a large list is never copied whole.
 */
export async function paginate<T, R>(
  ctx: Context,
  fetch: (offset: number, limit: number) => PageOf<T> | Promise<PageOf<T>>,
  render: (item: T) => R,
): Promise<Page<R>> {
  const raw = ctx.URL.searchParams.get('page');
  const pagesOf = (total: number) => Math.max(1, Math.ceil(total / PAGE_SIZE));
  let page = 1;
  if (raw === 'last') page = pagesOf((await fetch(0, 0)).total);
  else if (raw !== null && raw !== '') {
    if (!/^\d+$/.test(raw) || Number(raw) < 1) throw invalidPage();
    page = Number(raw);
  }
  const { total, items } = await fetch((page - 1) * PAGE_SIZE, PAGE_SIZE);
  const pages = pagesOf(total);
  if (page > pages) throw invalidPage();
  return {
    count: total,
    next: page < pages ? link(ctx, page + 1) : null,
    previous: page > 1 ? link(ctx, page - 1) : null,
    results: items.map(render),
  };
}

const invalidPage = () => detail(404, INVALID_PAGE);

function link(ctx: Context, page: number): string {
  const url = new URL(ctx.originalUrl, `${ctx.protocol}://${ctx.host}`);
  if (page === 1) url.searchParams.delete('page');
  else url.searchParams.set('page', String(page));
  return url.toString();
}
