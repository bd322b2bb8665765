import type { Context } from 'koa';
import { detail } from '../errors.ts';

/** Query and body readers for the sandbox API; every bad value is a 400 `{"detail": ...}`. */

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

export function intParam(ctx: Context, name: string, fallback: number, min: number, max: number): number {
  const raw = ctx.URL.searchParams.get(name);
  if (raw === null || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) throw detail(400, `${name} must be a whole number from ${min} to ${max}.`);
  return value;
}

/** limit (1–500, default 50) and offset (from 0). */
export function paging(ctx: Context): { offset: number; limit: number } {
  return { limit: intParam(ctx, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT), offset: intParam(ctx, 'offset', 0, 0, Number.MAX_SAFE_INTEGER) };
}

/** A trimmed string, or undefined when absent or empty. */
export function textParam(ctx: Context, name: string): string | undefined {
  return ctx.URL.searchParams.get(name)?.trim() || undefined;
}

export function boolParam(ctx: Context, name: string): boolean | undefined {
  const raw = textParam(ctx, name);
  if (raw === undefined) return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw detail(400, `${name} must be true or false.`);
}

export function oneOfParam<T extends string>(ctx: Context, name: string, allowed: readonly T[]): T | undefined {
  const raw = textParam(ctx, name);
  if (raw === undefined) return undefined;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw detail(400, `${name} must be one of ${allowed.join(', ')}.`);
}

/** A boolean from a JSON body (true/false) or a form body ("true"/"false"). */
export function boolField(data: Record<string, unknown>, name: string): boolean {
  const value = data[name];
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw detail(400, `${name} must be true or false.`);
}

export function stringField(data: Record<string, unknown>, name: string): string {
  const value = data[name];
  if (typeof value !== 'string') throw detail(400, `${name} must be a string.`);
  return value;
}
