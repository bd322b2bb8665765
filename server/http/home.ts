import type { Context } from 'koa';
import type { Sandbox } from '../domain/sandbox.ts';

/** A plain start page until the inbox UI lands: what is running and how to use it. */
export function homePage(sandbox: Sandbox) {
  return (ctx: Context) => {
    const origin = `${ctx.protocol}://${ctx.host}`;
    const example = sandbox.directory.config.teams.find((t) => t.flowsEnabled)?.senders[0]?.apiKey ?? 'YOUR-KEY';
    const keys = sandbox.directory.config.teams.flatMap((team) =>
      team.senders.map((s) => `<li><code>${escape(s.apiKey)}</code>: ${escape(s.name || s.id)} (team ${escape(team.name || team.id)}${s.developmentMode ? ', Development Mode' : ''}${team.flowsEnabled ? '' : ', flows off'})</li>`),
    );
    ctx.type = 'html';
    ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Pigeonhole</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
code,pre{font:14px ui-monospace,monospace;background:#f3f4f6;border-radius:4px}pre{padding:.75rem;overflow:auto}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}code,pre{background:#161b22}}</style></head><body>
<h1>Pigeonhole</h1><p>The local sandbox for the email API is running. Nothing is delivered: every email is captured.</p>
<p>Point your application's base URL at <code>${escape(origin)}</code> and use one of these API keys:</p><ul>${keys.join('')}</ul>
<pre>curl -X POST ${escape(origin)}/v1/email/send/ \\
  -H 'Authorization: Api-Key ${escape(example)}' \\
  -d recipient=user@example.com -d subject=Hello -d body='&lt;p&gt;Hi&lt;/p&gt;'</pre>
<p>Captured mail: <a href="/api/messages">/api/messages</a> (${sandbox.messages.count()} stored).</p></body></html>`;
  };
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
