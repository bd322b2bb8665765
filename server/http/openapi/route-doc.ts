import type { z } from 'zod';
import type { JsonSchema } from './json-schema.ts';
import { NOT_FOUND } from '../../service-texts.ts';
import { Detail } from './schemas.ts';

/**
 * What a route says about itself in the OpenAPI document beside its schemas: a summary, the
 * answers it gives (each with its body's schema and an example where one helps), and the
 * descriptions of its path parameters.
 */
export interface RouteDoc {
  summary: string;
  description?: string;
  tags: string[];
  /** Descriptions of the path parameters (`:id` → `id`). */
  params?: Record<string, string>;
  /** Header parameters the route reads. */
  headers?: { name: string; description?: string }[];
  /** A /v1 list paginated by `page` (read by the shared pagination, not the query schema). */
  paginated?: boolean;
  /** The body's example, and whether a body may be left out. */
  bodyExample?: unknown;
  bodyOptional?: boolean;
  /** A body schema for the document when it differs from the validated one (/v1's multipart attachments). */
  bodyDoc?: z.ZodType;
  responses: Record<number, ResponseDoc>;
  /** Marks a route served beside the router (the WebSocket upgrade). */
  extensions?: Record<string, unknown>;
}

/** A route as the document sees it: where, its schemas, and what it says about itself. */
export interface DocumentedRoute {
  method: string;
  path: string;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Body fields that may also come in the query string. */
  bodyFromQuery?: readonly string[];
  doc: RouteDoc;
}

export interface ResponseDoc {
  description: string;
  /** The JSON body's schema. */
  body?: z.ZodType;
  example?: unknown;
  /** Bodies of other media types, with their JSON Schema. */
  content?: Record<string, JsonSchema>;
  headers?: Record<string, JsonSchema>;
}

/** A `{"detail": "<message>"}` answer with its exact message as the example. */
export function detail(description: string, message: string, headers?: Record<string, JsonSchema>): ResponseDoc {
  return { description, body: Detail, example: { detail: message }, ...(headers ? { headers } : {}) };
}

export function json(description: string, body: z.ZodType, example?: unknown): ResponseDoc {
  return { description, body, ...(example === undefined ? {} : { example }) };
}

export const noContent = (description = 'Done; empty body.'): ResponseDoc => ({ description });

export const notFound = (description = 'No such message.'): ResponseDoc => detail(description, NOT_FOUND);
