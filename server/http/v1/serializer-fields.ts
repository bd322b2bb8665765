import { z } from 'zod';
import { isValidEmail } from '../../domain/email-address.ts';
import { normaliseFlags } from '../../domain/directory/flags.ts';
import type { ParsedBody } from '../body.ts';
import { FIELD } from '../../service-texts.ts';
import { fieldErrors } from '../errors.ts';
import { describedAs } from '../openapi/json-schema.ts';

/**
 * Zod field types that read and fail like the real service's serializer fields, with its
 * standard messages (docs/api-contract.md §1). One schema per request; handlers get typed input.
 */
const { required: REQUIRED, blank: BLANK, null: NULL, notString: NOT_STRING, badEmail: BAD_EMAIL, badBoolean: BAD_BOOLEAN, emptyList: EMPTY_LIST } = FIELD;

const typeError = (message: string) => (issue: { input?: unknown }) => (issue.input === undefined ? REQUIRED : issue.input === null ? NULL : message);

/** Numbers are accepted as strings, as the serializer's CharField does. */
const asString = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? String(value) : value);

interface TextOptions {
  /** Strip surrounding white space from the value (names, subjects); bodies keep theirs. */
  trim?: boolean;
}

/** A required string that may not be blank. */
export function requiredText({ trim = true }: TextOptions = {}) {
  const base = z.string({ error: typeError(NOT_STRING) });
  const checked = trim ? base.trim().min(1, { error: BLANK }) : base.refine((s) => s.trim() !== '', { error: BLANK });
  return z.preprocess(asString, checked);
}

/** An optional string; blank is allowed. */
export function optionalText({ trim = true }: TextOptions = {}) {
  const base = z.string({ error: typeError(NOT_STRING) });
  return z.preprocess(asString, trim ? base.trim() : base).optional();
}

/** A required email address: required, then not blank, then valid. */
export function requiredEmail() {
  const email = z.preprocess(
    asString,
    z
      .string({ error: typeError(NOT_STRING) })
      .trim()
      .min(1, { error: BLANK, abort: true })
      .refine(isValidEmail, { error: BAD_EMAIL }),
  );
  return describedAs(email, { type: 'string', format: 'email' });
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/** Booleans: true/false, 1/0, "true"/"false", "1"/"0", "yes"/"no", "on"/"off", any case. */
export function booleanField(fallback: boolean) {
  const field = z
    .preprocess(
      (value) => {
        if (typeof value === 'boolean' || value === undefined) return value;
        const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim().toLowerCase() : undefined;
        if (text !== undefined && TRUE.has(text)) return true;
        if (text !== undefined && FALSE.has(text)) return false;
        return value;
      },
      z.boolean({ error: (issue) => (issue.input === null ? NULL : BAD_BOOLEAN) }),
    )
    .default(fallback);
  return describedAs(field, {
    anyOf: [{ type: 'boolean' }, { type: 'string' }],
    default: fallback,
    description: 'true/false, 1/0, yes/no, on/off in any case.',
  });
}

const FLAGS = { id: 'Flags', description: 'A list of strings or one comma-separated string; split, trimmed, empties dropped, duplicates removed, order kept.' };

const flagItems = z.union([z.string(), z.array(z.string())], { error: (issue) => (issue.input === null ? NULL : NOT_STRING) }).meta(FLAGS);

/** Flags as a list of strings or one comma-separated string, normalised (docs/api-contract.md §3, §5). */
export function optionalFlags() {
  return flagItems.optional().transform((value) => normaliseFlags(value));
}

/** Required flags: missing is required, an empty (normalised) list is refused (docs/api-contract.md §5). */
export function requiredFlags() {
  return z
    .union([z.string(), z.array(z.string())], { error: typeError(NOT_STRING) })
    .meta(FLAGS)
    .transform((value) => normaliseFlags(value))
    .refine((flags) => flags.length > 0, { error: EMPTY_LIST });
}

/** Fields that keep every value of a repeated form field; others take the last, as QueryDict.get does. */
const LIST_FIELDS = new Set(['flags']);

/**
 * Validates a request body against a schema; every failing field is reported at once as
 * {"<field>": ["<message>"]}, one message per field, in schema order.
 */
export function validate<S extends z.ZodObject>(schema: S, body: ParsedBody): z.output<S> {
  const input = body.form ? fromForm(body.data) : body.data;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? 'non_field_errors');
    errors[field] ??= [issue.message];
  }
  const ordered: Record<string, string[]> = {};
  for (const key of Object.keys(schema.shape)) if (errors[key]) ordered[key] = errors[key];
  throw fieldErrors({ ...ordered, ...errors });
}

function fromForm(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (Array.isArray(value) && !LIST_FIELDS.has(key)) out[key] = value[value.length - 1];
    else out[key] = value;
  }
  return out;
}
