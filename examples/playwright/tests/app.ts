import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Stands for your application: a sign-up form that sends a confirmation link through the email
 * API (the sandbox's /v1), and the page the link opens.
 */
export interface App {
  readonly url: string;
  close(): Promise<void>;
}

const page = (body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title></head><body>${body}</body></html>`;
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startApp({ emailApi }: { emailApi: string }): Promise<App> {
  const pending = new Map<string, string>();
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://app');
    const reply = (status: number, body: string) => response.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' }).end(page(body));
    if (request.method === 'GET' && url.pathname === '/signup') {
      return reply(200, '<form method="post"><label>Email <input name="email" type="email"></label><button>Sign up</button></form>');
    }
    if (request.method === 'POST' && url.pathname === '/signup') {
      let form = '';
      for await (const chunk of request) form += chunk;
      const email = new URLSearchParams(form).get('email') ?? '';
      const token = crypto.randomUUID();
      pending.set(token, email);
      const link = `http://${request.headers.host}/confirm?token=${token}`;
      const sent = await fetch(`${emailApi}/v1/email/send/`, {
        method: 'POST',
        // bulk-key: the sample configuration's sender with no daily limit (test-key's is 100 a day, as the
        // service's would be, and a test suite sends more than that in a day).
        headers: { Authorization: 'Api-Key bulk-key', 'Content-Type': 'application/json' },
        body: JSON.stringify({ recipient: email, subject: 'Confirm your email', body: `<p><a href="${link}">Confirm your email</a></p>` }),
      });
      return sent.ok ? reply(200, '<p>Check your inbox.</p>') : reply(502, '<p>Could not send the email.</p>');
    }
    if (request.method === 'GET' && url.pathname === '/confirm') {
      const email = pending.get(url.searchParams.get('token') ?? '');
      return email ? reply(200, `<h1>Confirmed ${escapeHtml(email)}</h1>`) : reply(404, '<h1>Unknown link</h1>');
    }
    reply(404, '<h1>Not found</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
