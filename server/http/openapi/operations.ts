import { z } from 'zod';
import type { DocumentedRoute } from './docs.ts';

/** What the HTTP port serves beside the two APIs: the probes, the metrics, the inbox, the live push, this document. */

const operations = ['operations'];
const check = z.record(z.string(), z.string()).describe('Each check (storage, http, smtp) and its state: ok, down, full, read-only, closed...');

export const operationDocs: DocumentedRoute[] = [
  {
    method: 'GET',
    path: '/livez',
    doc: { summary: 'Liveness', tags: operations, responses: { 200: { description: 'Alive.', body: z.object({ status: z.literal('ok') }) } } },
  },
  {
    method: 'GET',
    path: '/readyz',
    doc: {
      summary: 'Readiness',
      description: 'Storage is open and every listener is up, and the process is not shutting down.',
      tags: operations,
      responses: {
        200: { description: 'Ready.', body: z.object({ status: z.literal('ready'), checks: check }) },
        503: {
          description: 'Not ready, or stopping.',
          body: z.object({ status: z.enum(['not ready', 'stopping']), detail: z.string(), checks: check }),
          example: { status: 'not ready', detail: 'Not ready: smtp down.', checks: { storage: 'ok', http: 'ok', smtp: 'down' } },
        },
      },
    },
  },
  {
    method: 'GET',
    path: '/metrics',
    doc: {
      summary: 'Prometheus metrics',
      tags: operations,
      responses: { 200: { description: 'text/plain; version=0.0.4', content: { 'text/plain': { type: 'string' } } } },
    },
  },
  {
    method: 'GET',
    path: '/',
    doc: {
      summary: 'The inbox UI (or, if the UI was not built, a page that says so)',
      tags: operations,
      responses: { 200: { description: 'HTML.', content: { 'text/html': { type: 'string' } } } },
    },
  },
  {
    method: 'GET',
    path: '/assets/:file',
    doc: {
      summary: "The inbox UI's built scripts and styles (hashed names, cached for a year)",
      tags: operations,
      params: { file: 'The file name.' },
      responses: { 200: { description: 'The file.' }, 404: { description: 'No such file.' } },
    },
  },
  {
    method: 'GET',
    path: '/api/events',
    doc: {
      summary: 'Live events (WebSocket)',
      description:
        'Upgrade to a WebSocket; frames are JSON {type, data}: hello, message.created, message.status, message.updated, message.deleted, message.cleared, recipient.changed, subscription.changed, subscription.removed, clock.changed, sandbox.reset (the Frame type of the typed client).',
      tags: ['inbox'],
      extensions: { 'x-websocket': true },
      responses: { 101: { description: 'Switching protocols.' } },
    },
  },
  {
    method: 'GET',
    path: '/api/openapi.json',
    doc: { summary: 'This document', tags: ['toolkit'], responses: { 200: { description: 'OpenAPI 3.1.', body: z.looseObject({}) } } },
  },
];
