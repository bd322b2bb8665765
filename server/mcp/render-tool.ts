import { z } from 'zod';
import type { ClientView, PigeonholeClient } from '../../client/pigeonhole-client.ts';
import * as S from '../http/openapi/schemas.ts';

/** Characters of transformed HTML a tool answer carries unless the call asks for more (as the MCP tools' HTML limit). */
const HTML_LIMIT = 100_000;

/**
 * The MCP tool of the client views (`render_message`): its name, description, input shape and
 * handler, a call of the typed client like every tool. The view's
 * HTML comes only when asked (an agent mostly needs `removed`), cut to `max_html_chars`.
 */
export const renderTool = {
  name: 'render_message',
  description:
    "Show a captured email as an email client would, approximately (docs/checks.md, \"Client views\"): client is gmail-web, gmail-app, outlook-windows, outlook-com, apple-mail, yahoo or images-off; mode light, dark or inverted. Returns the view's fidelity (high, medium, low), its limits, and removed: what the client drops (caniemail's latest test, a note of it, Gmail's clip at 102 KB, images off), with lines and the check finding each answers to (see check_message). The transformed HTML only with include_html.",
  input: {
    id: z.string().min(1).describe('The capture id.'),
    client: S.ClientViewId.describe('The client view.'),
    mode: S.RenderMode.optional().describe('light (default), dark or inverted.'),
    include_html: z.boolean().default(false).describe('Also return the transformed HTML (cut to max_html_chars).'),
    max_html_chars: z.number().int().min(0).max(50_000_000).default(HTML_LIMIT).describe('Longest HTML returned when include_html is true.'),
  },
  async run(
    client: PigeonholeClient,
    args: { id: string; client: ClientView['client']; mode?: ClientView['mode']; include_html?: boolean; max_html_chars?: number },
    signal?: AbortSignal,
  ): Promise<Omit<ClientView, 'html'> & { html?: string; html_truncated?: boolean }> {
    const { html, ...view } = await client.render(args.id, args.client, { mode: args.mode, signal });
    if (!args.include_html) return view;
    const limit = args.max_html_chars ?? HTML_LIMIT;
    return { ...view, html: html.slice(0, limit), html_truncated: html.length > limit };
  },
};
