import { z } from 'zod';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it) node. */
export type JsonSchema = Record<string, unknown>;

/**
 * What a client sends for a field whose zod type says otherwise: a query value is a string the
 * schema turns into a number, a body field is checked by hand for its exact message. The
 * OpenAPI document shows this instead of the schema's own input type.
 */
const described = z.registry<JsonSchema>();

export function describedAs<S extends z.ZodType>(schema: S, json: JsonSchema): S {
  described.add(schema, json);
  return schema;
}

/** The largest and smallest safe integers zod adds to every `.int()`: noise in a document. */
const SAFE = [Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER];

/**
 * A schema's JSON Schema as a client sees it (the input side of transforms), with schemas that
 * carry an `id` (`.meta({id})`) left as references to `#/components/schemas/<id>`; their
 * definitions are added to `components`.
 */
export function toJsonSchema(schema: z.ZodType, components: Record<string, JsonSchema>): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const node = jsonSchema as JsonSchema;
      const shown = described.get(zodSchema as unknown as z.ZodType);
      if (shown) {
        // A description given with .describe() wins over the one the field type carries.
        const description = node.description;
        for (const key of Object.keys(node)) delete node[key];
        Object.assign(node, shown, description === undefined ? {} : { description });
      }
      if (SAFE.includes(node.minimum as number)) delete node.minimum;
      if (SAFE.includes(node.maximum as number)) delete node.maximum;
    },
  }) as JsonSchema;
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  delete json.$defs;
  delete json.$schema;
  for (const [id, def] of Object.entries(defs)) {
    const linked = relink(def) as JsonSchema;
    // Two different schemas under one name would make one of them wrong in the document.
    if (components[id] && JSON.stringify(components[id]) !== JSON.stringify(linked)) throw new Error(`two schemas are named ${id}`);
    components[id] = linked;
  }
  return relink(json) as JsonSchema;
}

/** `#/$defs/X` → `#/components/schemas/X`. */
function relink(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(relink);
  if (value === null || typeof value !== 'object') return value;
  const out: JsonSchema = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = key === '$ref' && typeof item === 'string' ? item.replace('#/$defs/', '#/components/schemas/') : relink(item);
  }
  return out;
}
