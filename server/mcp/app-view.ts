import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CheckReport, MessageDetail, PigeonholeClient } from '../../client/pigeonhole-client.ts';
import { projectRoot } from './project-root.ts';

/**
 * The email shown in the chat (MCP Apps, `io.modelcontextprotocol/ui`): get_message,
 * wait_for_message and expect_messages name a `ui://` view, one self-contained HTML file built
 * from ui/mcp-app (dist/mcp-app/email.html). Its URI carries the file's content hash, since
 * hosts cache by URI. The view fetches nothing: the tool result carries what it shows under
 * `_meta["pigeonhole/view"]` (the model reads the content, as before; hosts hand `_meta` to the
 * view). Without a build of the view, the tools name none and answer as before.
 */

export const VIEW_META_KEY = 'pigeonhole/view';
const MIME_TYPE = 'text/html;profile=mcp-app';
/** Captures a result shows in the view with their HTML (expect_messages may match up to 1,000). */
const VIEW_MESSAGES = 5;
/** Inline (`cid:`) images inlined as `data:` in one capture, at most. */
const INLINE_BYTES = 2_000_000;

/** The built view and its URI, read once per process (at the first MCP request); null when it was not built. */
export function emailView(): { uri: string; html: string } | null {
  loaded ??= { view: loadView() };
  return loaded.view;
}
let loaded: { view: { uri: string; html: string } | null } | undefined;

function loadView(): { uri: string; html: string } | null {
  const dir = projectRoot();
  if (dir === null) return null;
  const file = path.join(dir, 'dist', 'mcp-app', 'email.html');
  if (!existsSync(file)) return null;
  const html = readFileSync(file, 'utf8');
  const hash = createHash('sha256').update(html).digest('hex').slice(0, 16);
  return { uri: `ui://pigeonhole/email-${hash}.html`, html };
}

/** Serves the view as a resource (cacheable for a year on 2026-07-28: its URI changes with it). */
export function registerEmailView(server: McpServer, view: { uri: string; html: string }): void {
  server.registerResource(
    'email-view',
    view.uri,
    {
      title: 'The captured email',
      description: 'Shows a captured email in the chat: subject, from/to, the HTML at three widths in light and two dark modes, links, codes and the check.',
      mimeType: MIME_TYPE,
      cacheHint: { ttlMs: 31_536_000_000, cacheScope: 'public' },
      _meta: { ui: { prefersBorder: true } },
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: MIME_TYPE, text: view.html, _meta: { ui: { prefersBorder: true } } }] }),
  );
}

/** What the view shows for the captures `ids` (the first few), built from the sandbox's own API. */
export async function viewPayload(client: PigeonholeClient, tool: string, ids: string[], signal: AbortSignal) {
  const messages = await Promise.all(ids.slice(0, VIEW_MESSAGES).map((id) => viewMessage(client, id, signal)));
  return { tool, messages };
}

async function viewMessage(client: PigeonholeClient, id: string, signal: AbortSignal) {
  const [m, check] = await Promise.all([client.get(id, { signal }), client.check(id, { signal }).catch(() => null)]);
  return {
    id: m.id,
    subject: m.subject,
    from: m.from,
    to: m.to,
    cc: m.cc,
    created_at: m.created_at,
    status: m.status,
    html: m.html === null ? null : await inlineImages(client, m, signal),
    text: m.text,
    links: m.links,
    codes: m.codes,
    check: check === null ? null : checkSummary(check),
    inbox_url: `${client.baseUrl}/#/m/${encodeURIComponent(m.id)}`,
  };
}

/** `cid:` references to the capture's own inline images, as `data:` URLs (the view loads nothing). */
async function inlineImages(client: PigeonholeClient, m: MessageDetail, signal: AbortSignal): Promise<string> {
  let html = m.html ?? '';
  let budget = INLINE_BYTES;
  for (const [index, attachment] of m.attachments.entries()) {
    if (attachment.content_id === null || !attachment.content_type.startsWith('image/') || attachment.size > budget) continue;
    const bytes = await client.attachment(m.id, index, { signal }).catch(() => null);
    if (bytes === null) continue;
    budget -= bytes.byteLength;
    const url = `data:${attachment.content_type};base64,${Buffer.from(bytes).toString('base64')}`;
    html = html.split(`cid:${attachment.content_id}`).join(url);
  }
  return html;
}

function checkSummary(check: CheckReport) {
  const issues = check.accessibility.issues;
  return {
    score: check.html?.score ?? null,
    market_score: check.html?.market_score ?? null,
    html_bytes: check.size.html_bytes,
    gmail_clipped: check.size.gmail_clipped,
    accessibility: { errors: issues.filter((i) => i.severity === 'error').length, warnings: issues.filter((i) => i.severity === 'warning').length },
    dark_mode: check.dark_mode?.findings.map((f) => f.message) ?? [],
    spam: check.spam === null ? null : { score: check.spam.score, threshold: check.spam.threshold, is_spam: check.spam.is_spam },
    warnings: (check.html?.warnings ?? [])
      .filter((w) => w.severity === 'error')
      .map((w) => w.title)
      .slice(0, 8),
  };
}
