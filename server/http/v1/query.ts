import type { Context } from 'koa';
import type { z } from 'zod';

/** A query parameter as the real framework reads it: the last value when repeated; blank is absent. */
export function queryParam(ctx: Context, name: string): string | undefined {
  const values = ctx.URL.searchParams.getAll(name);
  const value = values[values.length - 1]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** A string field of a parsed body read like a query parameter (last value of a form list; blank is absent). */
export function bodyParam(data: Record<string, unknown>, name: string): string | undefined {
  const raw = data[name];
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** The query parameters a schema names, each read as `queryParam` reads it, then parsed. */
export function readQuery<S extends z.ZodObject>(ctx: Context, schema: S): z.output<S> {
  const input: Record<string, string | undefined> = {};
  for (const name of Object.keys(schema.shape)) input[name] = queryParam(ctx, name);
  return schema.parse(input);
}
