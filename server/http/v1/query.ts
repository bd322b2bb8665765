import type { Context } from 'koa';

/** A query parameter as the real framework reads it: the last value when repeated; blank is absent. */
export function queryParam(ctx: Context, name: string): string | undefined {
  const values = ctx.URL.searchParams.getAll(name);
  const value = values[values.length - 1]?.trim();
  return value === undefined || value === '' ? undefined : value;
}
