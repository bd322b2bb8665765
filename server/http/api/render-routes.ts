import { z } from 'zod';
import type { ClientView } from '../../../client/pigeonhole-client.ts';
import { lazy } from '../../domain/lazy.ts';
import { prepareHtml } from '../../domain/mail/html-preview.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { CLIENT_VIEWS, RENDER_MODES } from '../../domain/views/ids.ts';
import { detail, notFound } from '../errors.ts';
import { detail as detailDoc, json } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import { signedPath } from '../signed-reads.ts';
import { oneOf } from './input-fields.ts';
import { attachmentUrl } from './capture-reads.ts';
import { route, type ApiRoute } from './route.ts';

const BAD_CLIENT = `client must be one of ${CLIENT_VIEWS.join(', ')}.`;

/**
 * A capture as an email client would show it (GET /api/messages/{id}/render): the client views
 * of docs/checks.md, computed on each request from the stored HTML (no cache: a view costs a
 * few milliseconds, bench/render.ts).
 */
export function renderRoutes(sandbox: Sandbox): ApiRoute[] {
  // The views' data loads with the first view, not with the server.
  const views = lazy(() => import('../../domain/views/render.ts'));
  return [
    route({
      method: 'GET',
      path: '/api/messages/:id/render',
      query: z.object({
        client: oneOf('client', CLIENT_VIEWS, { required: true }).describe('The client view.'),
        mode: oneOf('mode', RENDER_MODES).describe(
          "light (default), dark (the client's own dark mode: the email's dark styles where it applies them, an inversion where it inverts) or inverted.",
        ),
      }),
      doc: {
        summary: 'A capture as an email client shows it',
        description:
          "An approximation, with a fidelity level: what the client's latest caniemail test marks unsupported is removed (CSS declarations, selectors, at-rule blocks, elements, attributes), plus Gmail's clip at 102 KB and an images-off view where each image shows its alt text. `removed` says what went, by which rule, with the check finding it answers to. Deterministic and offline.",
        tags: ['checks'],
        params: { id: 'Message (capture) id.' },
        responses: {
          200: json('The client view.', S.ClientView),
          400: detailDoc('An unknown client or mode.', BAD_CLIENT),
          404: detailDoc('No such capture, or it has no HTML body.', 'This capture has no HTML body.'),
        },
      },
      async handle(ctx, { query }) {
        const record = await sandbox.messages.get(ctx.params.id!);
        if (!record) throw notFound();
        const html = await sandbox.messages.html(record);
        if (html === null) throw detail(404, 'This capture has no HTML body.');
        const { renderClientView } = await views();
        const view = renderClientView(html, query.client!, query.mode ?? 'light');
        // As the preview's /html: cid: images point at the attachments (signed: the sandboxed frame sends no cookie).
        const prepared = prepareHtml(view.html, record.attachments, (index) => signedPath(attachmentUrl(record, index))).html;
        ctx.body = { ...view, html: prepared } satisfies ClientView;
      },
    }),
  ];
}
