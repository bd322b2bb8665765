/** Small builders for the OpenAPI 3.1 document, so each resource module reads like a table. */

export type Json = Record<string, unknown>;
export type PathItem = Record<string, Json>;
export type Paths = Record<string, PathItem>;

export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

export const str = (description?: string, extra: Json = {}): Json => ({ type: 'string', ...(description ? { description } : {}), ...extra });
export const int = (description?: string, extra: Json = {}): Json => ({ type: 'integer', ...(description ? { description } : {}), ...extra });
export const bool = (description?: string): Json => ({ type: 'boolean', ...(description ? { description } : {}) });
export const nullable = (schema: Json): Json => ({ anyOf: [schema, { type: 'null' }] });
export const array = (items: Json, description?: string): Json => ({ type: 'array', items, ...(description ? { description } : {}) });

/** An object whose listed properties are all required unless named in `optional`. */
export function object(properties: Record<string, Json>, optional: string[] = [], description?: string): Json {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
  };
}

export function json(schema: Json, example?: unknown): Json {
  return { 'application/json': { schema, ...(example === undefined ? {} : { example }) } };
}

export function response(description: string, schema?: Json, example?: unknown, headers?: Json): Json {
  return { description, ...(headers ? { headers } : {}), ...(schema ? { content: json(schema, example) } : {}) };
}

/** A `{"detail": "<message>"}` response with its exact message as the example. */
export const detail = (description: string, message: string, headers?: Json): Json => response(description, ref('Detail'), { detail: message }, headers);

export const noContent = (description = 'Done; empty body.'): Json => ({ description });

export const query = (name: string, description: string, schema: Json = { type: 'string' }, required = false): Json => ({
  name,
  in: 'query',
  required,
  description,
  schema,
});

export const pathParam = (name: string, description: string): Json => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });

/** A JSON request body for the sandbox API. */
export function jsonBody(schema: Json, required = true, example?: unknown): Json {
  return { required, content: json(schema, example) };
}
