import { z } from 'zod';
import { isValidEmail } from '../../domain/email-address.ts';
import { decodeId } from '../../domain/ids.ts';
import { namespaceName } from '../../domain/entities.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { describedAs } from '../openapi/json-schema.ts';

/**
 * Zod field types of the sandbox API's queries and bodies. Each fails with the one sentence the
 * API answers in `{"detail": "..."}` (the field's name, what it must be); `describedAs` says what
 * a client sends where the schema's own input type would not (query values are strings).
 */

/** Page size bounds of every /api list. */
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

/** A value that is absent: not given, null, or blank. */
const absent = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/** Fails the field with the sentence the API answers. */
function refuse(ctx: z.RefinementCtx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
}

/** A query value (trimmed; blank is absent). */
export function text() {
  return z.preprocess((value) => (absent(value) ? undefined : value), z.string().trim().optional());
}

/** A query flag that is on when present, even blank (`?download`). */
export function present() {
  return describedAs(
    z
      .string()
      .optional()
      .transform((value) => value !== undefined),
    { type: 'string', description: 'Present (any value, even none) to turn it on.' },
  );
}

/** A whole number from `min` to `max`; absent gives `fallback`. */
export function wholeNumber(name: string, fallback: number, min: number, max: number) {
  return describedAs(
    text().transform((raw, ctx) => {
      if (raw === undefined) return fallback;
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || value < min || value > max) return refuse(ctx, `${name} must be a whole number from ${min} to ${max}.`);
      return value;
    }),
    { type: 'integer', minimum: min, ...(max < Number.MAX_SAFE_INTEGER ? { maximum: max } : {}), default: fallback },
  );
}

/** A whole number from `min` to `max` that must be given. */
export function requiredWholeNumber(name: string, min: number, max: number) {
  const message = `${name} is required: a whole number from ${min} to ${max}.`;
  // z.unknown() rather than text(): the OpenAPI document then lists the parameter as required.
  return describedAs(
    z.unknown().transform((raw, ctx) => {
      const trimmed = typeof raw === 'string' ? raw.trim() : '';
      const value = Number(trimmed);
      if (!/^\d+$/.test(trimmed) || value < min || value > max) return refuse(ctx, message);
      return value;
    }),
    { type: 'integer', minimum: min, maximum: max },
  );
}

/** limit (1–500, default 50) and offset (from 0): the paging of every /api list. */
export function paging() {
  return {
    limit: wholeNumber('limit', DEFAULT_LIMIT, 1, MAX_LIMIT).describe(`1–${MAX_LIMIT}, default ${DEFAULT_LIMIT}.`),
    offset: wholeNumber('offset', 0, 0, Number.MAX_SAFE_INTEGER).describe('Default 0.'),
  };
}

/** One of `allowed` (a string); absent is undefined, unless `required`. */
export function oneOf<const T extends readonly [string, ...string[]]>(name: string, allowed: T, { required = false } = {}) {
  const message = `${name} must be one of ${allowed.join(', ')}.`;
  const value = required ? z.unknown() : z.unknown().optional();
  return describedAs(
    value.transform((raw, ctx): T[number] | undefined => {
      if (absent(raw)) return required ? refuse(ctx, message) : undefined;
      if (typeof raw !== 'string') return refuse(ctx, `${name} must be a string.`);
      if (!(allowed as readonly string[]).includes(raw.trim())) return refuse(ctx, message);
      return raw.trim() as T[number];
    }),
    { type: 'string', enum: [...allowed] },
  );
}

/**
 * A yes/no value from a query or body: a JSON boolean or the words `true`/`false`, nothing
 * looser (a typo such as `blocked=yes` is a 400, not a silent filter). Absent is `fallback`
 * (undefined: no filter).
 */
export function trueFalse<F extends boolean | undefined>(name: string, fallback: F) {
  return describedAs(
    z
      .unknown()
      .optional()
      .transform((value, ctx): boolean | F => {
        if (absent(value)) return fallback;
        return yesNo(value) ?? refuse(ctx, `${name} must be true or false.`);
      }),
    { type: 'boolean', ...(fallback === undefined ? {} : { default: fallback }) },
  );
}

/** A yes/no value that must be given. */
export function requiredTrueFalse(name: string) {
  return describedAs(
    z.unknown().transform((value, ctx) => yesNo(value) ?? refuse(ctx, `${name} must be true or false.`)),
    { type: 'boolean' },
  );
}

function yesNo(value: unknown): boolean | undefined {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return undefined;
}

/** An ISO-8601 time, as a Date. */
export function since() {
  return describedAs(
    text().transform((value, ctx) => {
      if (value === undefined) return undefined;
      const date = new Date(value);
      if (Number.isNaN(date.getTime())) return refuse(ctx, 'since must be an ISO-8601 time, e.g. 2026-02-17T12:00:00Z.');
      return date;
    }),
    { type: 'string', format: 'date-time' },
  );
}

/** A capture id (`after`: only newer captures). */
export function captureId(name: string) {
  return text().transform((value, ctx) => {
    if (value !== undefined && decodeId(value) === null) return refuse(ctx, `${name} must be a message id ("${value}" is not one).`);
    return value;
  });
}

/** A namespace (the `+tag` of an address, storage/namespace.ts), lower-cased; from a query or (`from`: bodyText) a body. */
export function namespace(from: z.ZodType<string | undefined, unknown> = text()) {
  return describedAs(
    from.transform((value, ctx) => {
      if (value === undefined) return undefined;
      return namespaceName(value) ?? refuse(ctx, 'namespace must be 1 to 64 letters, digits, "-" or "_".');
    }),
    { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
  );
}

/** A configured team's id, from the query string or (`from`: bodyText) a body. */
export function team(sandbox: Sandbox, from: z.ZodType<string | undefined, unknown> = text()) {
  return from.transform((value, ctx) => {
    if (value !== undefined && !sandbox.directory.team(value)) return refuse(ctx, `team "${value}" is not a configured team.`);
    return value;
  });
}

/** A sender given as its id or as one of its API keys; the key is resolved here, at the edge. */
export function sender(sandbox: Sandbox) {
  return text().transform((value, ctx) => {
    if (value === undefined) return undefined;
    const caller = sandbox.directory.sender(value) ?? sandbox.directory.byApiKey(value);
    if (!caller) return refuse(ctx, `sender "${value}" is neither a sender id nor an API key.`);
    return caller.sender.id;
  });
}

/** A string field of a body, trimmed; blank is absent; anything but a string is refused. */
export function bodyText(name: string) {
  return describedAs(
    z
      .unknown()
      .optional()
      .transform((raw, ctx) => {
        if (raw === undefined || raw === null) return undefined;
        if (typeof raw !== 'string') return refuse(ctx, `${name} must be a string.`);
        return raw.trim() === '' ? undefined : raw.trim();
      }),
    { type: 'string' },
  );
}

/** A required string field of a body, as sent (an HTML body keeps its white space). */
export function bodyString(name: string) {
  return describedAs(
    z.unknown().transform((value, ctx) => (typeof value === 'string' ? value : refuse(ctx, `${name} must be a string.`))),
    { type: 'string' },
  );
}

/** An optional string field of a body, as sent: absent, null (and, when `blankIsAbsent`, "") are undefined. */
export function optionalBodyString(name: string, { blankIsAbsent = false } = {}) {
  return describedAs(
    z
      .unknown()
      .optional()
      .transform((value, ctx) => {
        if (value === undefined || value === null || (blankIsAbsent && value === '')) return undefined;
        return typeof value === 'string' ? value : refuse(ctx, `${name} must be a string.`);
      }),
    { anyOf: [{ type: 'string' }, { type: 'null' }] },
  );
}

/** A team and an email address (blocks): both required, the team configured, the address valid. */
export function blockTarget(sandbox: Sandbox) {
  return z.object({ team: team(sandbox, bodyText('team')).describe('Team id.'), email: bodyText('email').describe('Address.') }).transform((data, ctx) => {
    if (data.team === undefined) return refuse(ctx, 'team is required.');
    if (data.email === undefined || !isValidEmail(data.email)) return refuse(ctx, 'email must be a valid email address.');
    return { team: data.team, email: data.email };
  });
}
