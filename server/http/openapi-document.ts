import type Router from '@koa/router';
import type { ApiRoute } from './api/route.ts';
import { invalidPage, PAGE_PARAMETER, V1_BODY_TYPES, v1BodyResponses, v1Responses } from './v1/common-responses.ts';
import type { Endpoint } from './v1/endpoints.ts';
import type { DocumentedRoute, ResponseDoc } from './openapi/route-doc.ts';
import { toJsonSchema, type JsonSchema } from './openapi/json-schema.ts';
import { mcpDocs } from './openapi/mcp.ts';
import { operationDocs } from './openapi/operations.ts';

/**
 * The OpenAPI 3.1 document of both APIs, generated from the routes themselves: each route's
 * query and body schemas (the ones its requests are validated with) give its parameters and
 * request body; its documentation gives the answers, whose schemas are the wire types'.
 */
function openApiDocument({ v1, api }: { v1: Endpoint[]; api: ApiRoute[] }): JsonSchema {
  const components: Record<string, JsonSchema> = {};
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const add = (route: DocumentedRoute, operation: JsonSchema) => {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  };
  for (const endpoint of v1) add(endpoint, operation(endpoint, components, { v1: true }));
  for (const route of [...api, ...mcpDocs, ...operationDocs]) add(route, operation(route, components, { v1: false }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pigeonhole',
      version: '0.1.0',
      description:
        "A local sandbox for a transactional email service. /v1 emulates the service (Authorization: Api-Key <key>); /api is the sandbox's own API (no key). Nothing is delivered: every accepted email is captured. Any authenticated /v1 request may also get a 429, 500, 503, a delay or a dropped connection when a fault rule (/api/faults) fires.",
    },
    servers: [{ url: 'http://localhost:8025' }],
    tags: [
      { name: 'v1', description: 'The emulated service.' },
      { name: 'messages', description: 'Captured mail.' },
      { name: 'toolkit', description: 'Reset, blocks, faults, request log.' },
      { name: 'clock', description: 'The sandbox clock.' },
      { name: 'flows', description: 'Flow subscriptions.' },
      { name: 'inbox', description: "The inbox UI's own calls." },
      { name: 'templates', description: 'Account templates edited live, their versions, and captures re-wrapped in a draft (docs/sandbox-api.md#templates).' },
      { name: 'checks', description: 'Compatibility, size, accessibility, dark mode, headers, spam and links of an email (docs/checks.md).' },
      { name: 'mcp', description: 'The MCP server for coding agents.' },
      { name: 'operations', description: 'Probes, metrics and the inbox page.' },
    ],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The word Api-Key, one space, the key: `Authorization: Api-Key test-key`.',
        },
      },
    },
  };
}

function operation(route: DocumentedRoute, components: Record<string, JsonSchema>, { v1 }: { v1: boolean }): JsonSchema {
  const { doc } = route;
  const parameters: JsonSchema[] = [];
  for (const [, name] of route.path.matchAll(/:(\w+)/g)) {
    parameters.push({ name, in: 'path', required: true, ...(doc.params?.[name!] ? { description: doc.params[name!] } : {}), schema: { type: 'string' } });
  }
  if (route.query) parameters.push(...queryParameters(toJsonSchema(route.query, components)));
  const bodySchema = doc.bodyDoc ?? route.body;
  const body = bodySchema ? toJsonSchema(bodySchema, components) : undefined;
  if (body && route.bodyFromQuery) {
    const properties = properties$(body, components);
    for (const name of route.bodyFromQuery)
      parameters.push({
        name,
        in: 'query',
        required: false,
        description: 'In the body or here.',
        schema: stripDescription(properties[name] ?? { type: 'string' }),
      });
  }
  if (doc.paginated)
    parameters.push({ name: PAGE_PARAMETER.name, in: 'query', required: false, description: PAGE_PARAMETER.description, schema: { type: 'string' } });
  for (const header of doc.headers ?? [])
    parameters.push({
      name: header.name,
      in: 'header',
      required: false,
      ...(header.description ? { description: header.description } : {}),
      schema: { type: 'string' },
    });

  const responses: Record<string, ResponseDoc> = { ...doc.responses };
  if (v1) {
    if (doc.paginated) responses[404] ??= invalidPage;
    if (body) Object.assign(responses, v1BodyResponses);
    Object.assign(responses, v1Responses);
  }
  const bodyTypes = v1 ? V1_BODY_TYPES : ['application/json'];
  return {
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: doc.tags,
    ...(v1 ? { security: [{ ApiKey: [] }] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: !doc.bodyOptional,
            content: Object.fromEntries(
              bodyTypes.map((type) => [
                type,
                { schema: body, ...(doc.bodyExample === undefined || type !== 'application/json' ? {} : { example: doc.bodyExample }) },
              ]),
            ),
          },
        }
      : {}),
    responses: Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, responseObject(response, components)])),
    ...doc.extensions,
  };
}

/** One query parameter per property of the query schema. */
function queryParameters(schema: JsonSchema): JsonSchema[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required ?? []) as string[];
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.includes(name),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: stripDescription(property),
  }));
}

/** An object schema's properties, following a reference to a component. */
function properties$(schema: JsonSchema, components: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const ref = typeof schema.$ref === 'string' ? components[schema.$ref.replace('#/components/schemas/', '')] : undefined;
  return ((ref ?? schema).properties ?? {}) as Record<string, JsonSchema>;
}

function stripDescription(schema: JsonSchema): JsonSchema {
  const { description: _, ...rest } = schema;
  return rest;
}

function responseObject(response: ResponseDoc, components: Record<string, JsonSchema>): JsonSchema {
  const content: Record<string, JsonSchema> = {};
  if (response.body)
    content['application/json'] = { schema: toJsonSchema(response.body, components), ...(response.example === undefined ? {} : { example: response.example }) };
  for (const [type, schema] of Object.entries(response.content ?? {})) content[type] = { schema };
  return {
    description: response.description,
    ...(response.headers ? { headers: response.headers } : {}),
    ...(Object.keys(content).length > 0 ? { content } : {}),
  };
}

/** Serves the document, generated once from the mounted routes. */
export function mountOpenApi(router: Router, routes: { v1: Endpoint[]; api: ApiRoute[] }): void {
  let document: string | undefined;
  router.get('/api/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = document ??= JSON.stringify(openApiDocument(routes));
  });
}
