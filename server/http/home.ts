import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'koa';
import type { Sandbox } from '../domain/sandbox.ts';
import { ARRIVAL_META, OPENER_POLICY, openedByAnotherSite } from './arrival.ts';
import { notFound } from './errors.ts';

/**
 * The built inbox UI (`vite build` output), found from the sources (tsx) or from the compiled
 * server in dist/server: both sit under the project root that holds dist/ui.
 */
export const UI_DIR = findUiDir();

function findUiDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'dist', 'ui');
    if (existsSync(path.join(dir, 'package.json'))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve('dist/ui');
    dir = parent;
  }
}

// Vite names every asset after its content hash, so an asset URL never changes meaning.
const IMMUTABLE = 'public, max-age=31536000, immutable';
const ASSET_NAME = /^[\w.-]+$/;
// The UI's own page: scripts only from this origin, mail shown in frames (sandboxed by the UI).
const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: http: https:",
  "connect-src 'self' ws: wss:",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  // No other site may frame the inbox (clickjacking its buttons, "Clear all" say).
  "frame-ancestors 'none'",
].join('; ');

/**
 * Serves the inbox UI: `index.html` at `/` (never cached, so a rebuild shows at once) and the
 * hashed files under `/assets/` (cached for a year). When the UI has not been built, `/` is a
 * plain page that says so and still shows how to use the sandbox.
 */
export function homePage(sandbox: Sandbox, uiDir = UI_DIR) {
  return async (ctx: Context) => {
    const file = ctx.params?.file as string | undefined;
    if (file !== undefined) {
      if (!ASSET_NAME.test(file) || file.startsWith('.')) throw notFound();
      const full = path.join(uiDir, 'assets', file);
      const info = await stat(full).catch(() => null);
      if (!info?.isFile()) throw notFound();
      ctx.type = path.extname(file);
      ctx.set('Cache-Control', IMMUTABLE);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.length = info.size;
      ctx.body = await readFile(full);
      return;
    }
    const index = await readFile(path.join(uiDir, 'index.html'), 'utf8').catch(() => null);
    ctx.set('Cache-Control', 'no-cache');
    // Never in a frame of any page, built or not; X-Frame-Options for browsers without frame-ancestors.
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cross-Origin-Opener-Policy', OPENER_POLICY);
    ctx.set('Vary', 'Sec-Fetch-Site');
    ctx.type = 'html';
    if (index === null) {
      ctx.set('Content-Security-Policy', "frame-ancestors 'none'");
      ctx.body = notBuiltPage(sandbox, `${ctx.protocol}://${ctx.host}`, uiDir);
      return;
    }
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    // Another site started this load: the UI marks nothing read before the user acts (arrival.ts).
    ctx.body = openedByAnotherSite(ctx) ? index.replace('<head>', `<head>${ARRIVAL_META}`) : index;
  };
}

/** What `/` shows when dist/ui is missing: how to build the UI and how to use the API meanwhile. */
function notBuiltPage(sandbox: Sandbox, origin: string, uiDir: string): string {
  const example = sandbox.directory.config.teams.find((t) => t.flowsEnabled)?.senders[0]?.apiKey ?? 'YOUR-KEY';
  const keys = sandbox.directory.config.teams.flatMap((team) =>
    team.senders.map(
      (s) =>
        `<li><code>${escapeHtml(s.apiKey)}</code>: ${escapeHtml(s.name || s.id)} (team ${escapeHtml(team.name || team.id)}${s.developmentMode ? ', Development Mode' : ''}${team.flowsEnabled ? '' : ', flows off'})</li>`,
    ),
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Pigeonhole</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
code,pre{font:14px ui-monospace,monospace;background:#f3f4f6;border-radius:4px}pre{padding:.75rem;overflow:auto}
.note{border:1px solid #d4a72c;background:#fff8c5;border-radius:6px;padding:.75rem 1rem}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}code,pre{background:#161b22}.note{background:#2e2a1a;border-color:#9e6a03}}</style></head><body>
<h1>Pigeonhole</h1>
<p class="note" role="status"><strong>The inbox UI is not built.</strong> Run <code>npm run build</code> (or <code>npm start</code>, which builds it) and reload this page.
Expected it in <code>${escapeHtml(uiDir)}</code>.</p>
<p>The sandbox is running. Nothing is delivered: every email is captured.</p>
<p>Point your application's base URL at <code>${escapeHtml(origin)}</code> and use one of these API keys:</p><ul>${keys.join('')}</ul>
<pre>curl -X POST ${escapeHtml(origin)}/v1/email/send/ \\
  -H 'Authorization: Api-Key ${escapeHtml(example)}' \\
  -d recipient=user@example.com -d subject=Hello -d body='&lt;p&gt;Hi&lt;/p&gt;'</pre>
<p>Captured mail: <a href="/api/messages">/api/messages</a> (${sandbox.messages.count()} stored).</p></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
