import { z } from 'zod';
import type { DocumentedRoute } from './route-doc.ts';

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
    path: '/preview/:id',
    doc: {
      summary: 'The render URL: a capture alone, at a width and in a mode',
      description:
        'The email and nothing else, for screenshots and visual-regression tools: laid out exactly `width` pixels wide (its media queries see that width) and as tall as it is, light, with its own dark styles, or inverted; no script of the email runs and nothing remote loads unless `remote=1`. Only the inbox may frame it; another site can neither frame nor open it. Query: `width` = phone (375), tablet (768), desktop (the window, the default) or 200–4000 pixels; `mode` = light (default), dark, inverted; `client` = a client view (gmail-web, gmail-app, outlook-windows, outlook-com, apple-mail, yahoo, images-off: the HTML of GET /api/messages/{id}/render, which applies the mode as that client would); `remote` = 1.',
      tags: operations,
      params: { id: 'Message (capture) id.' },
      responses: {
        200: { description: 'HTML.', content: { 'text/html': { type: 'string' } } },
        400: {
          description: 'A bad width, mode or client.',
          body: z.object({ detail: z.string() }),
          example: { detail: 'mode must be one of light, dark, inverted.' },
        },
        404: { description: 'No such capture, or it has no HTML body.', body: z.object({ detail: z.string() }) },
      },
    },
  },
  {
    method: 'GET',
    path: '/api/events',
    doc: {
      summary: 'Live events (WebSocket)',
      description:
        'Upgrade to a WebSocket; frames are JSON {type, data}: hello, message.created, message.status, message.updated, message.deleted, message.cleared, recipient.changed, subscription.changed, subscription.removed, clock.changed, sandbox.reset, template.changed, template_file.changed (the Frame type of the typed client).',
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
