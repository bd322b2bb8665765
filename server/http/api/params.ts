import type { Context, Middleware, Next } from 'koa';
import type { Sandbox } from '../../domain/sandbox.ts';
import { detail, HttpError } from '../errors.ts';

/** Query and body readers for the sandbox API: bad values are a JSON 400, never a 500. */

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

export function text(ctx: Context, name: string): string | undefined {
  const values = ctx.URL.searchParams.getAll(name);
  const value = values[values.length - 1]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

export function int(ctx: Context, name: string, fallback: number, min: number, max: number): number {
  const raw = text(ctx, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw detail(400, `${name} must be a whole number from ${min} to ${max}.`);
  return value;
}

/** limit (1–500, default 50) and offset (from 0). */
export function paging(ctx: Context): { offset: number; limit: number } {
  return { limit: int(ctx, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT), offset: int(ctx, 'offset', 0, 0, Number.MAX_SAFE_INTEGER) };
}

export function oneOf<T extends string>(value: string | undefined, name: string, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw detail(400, `${name} must be one of ${allowed.join(', ')}.`);
  return value as T;
}

/**
 * A yes/no value from a query or body: a JSON boolean or the words `true`/`false`, nothing
 * looser (a typo such as `blocked=yes` is a 400, not a silent filter). Absent gives `fallback`
 * (pass undefined for "no filter").
 */
export function bool<F extends boolean | undefined>(value: unknown, name: string, fallback: F): boolean | F {
  if (value === undefined || value === null || value === '') return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw detail(400, `${name} must be true or false.`);
}

/** A sender given as its id or as one of its API keys; the key is resolved here, at the edge. */
export function senderId(sandbox: Sandbox, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const caller = sandbox.directory.sender(value) ?? sandbox.directory.byApiKey(value);
  if (!caller) throw detail(400, `sender "${value}" is neither a sender id nor an API key.`);
  return caller.sender.id;
}

export function team(sandbox: Sandbox, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!sandbox.directory.team(value)) throw detail(400, `team "${value}" is not a configured team.`);
  return value;
}

/** A required string field of a body, as sent (an HTML body keeps its whitespace). */
export function stringField(data: Record<string, unknown>, name: string): string {
  const value = data[name];
  if (typeof value !== 'string') throw detail(400, `${name} must be a string.`);
  return value;
}

/** A string field of a JSON (or form) body, trimmed; blank is absent. */
export function field(data: Record<string, unknown>, name: string): string | undefined {
  const raw = data[name];
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string') throw detail(400, `${name} must be a string.`);
  return raw.trim() === '' ? undefined : raw.trim();
}

/**
 * The body parser for the sandbox API: a body that is not an object reads
 * {"detail": "..."} like every /api error, not the /v1 framework's non_field_errors.
 */
export function apiBody(parseBody: Middleware): Middleware {
  return async (ctx: Context, next: Next) => {
    let parsed = false;
    try {
      await parseBody(ctx, () => {
        parsed = true;
        return next();
      });
    } catch (error) {
      const body = error instanceof HttpError ? (error.body as Record<string, unknown>) : undefined;
      if (!parsed && body && !('detail' in body)) throw detail(400, 'The body must be a JSON object.');
      throw error;
    }
  };
}
