import { expect } from 'vitest';
import { api, read, type TestServer } from './app.ts';
import { capturedId, smtpClient } from './smtp.ts';

/**
 * A store with captures and recipients in the states a restart must keep, and everything the
 * inbox and the /v1 API show of them: what the start-up tests (checkpoints, the start-up image)
 * compare before a stop and after the next start.
 */

export async function send(server: TestServer, i: number): Promise<string> {
  const reply = await read(
    await api(server.url, 'bulk-key').post('/v1/email/send/', { recipient: `cp${i}@example.com`, subject: `Checkpoint ${i}`, body: `<p>Body number ${i}</p>` }),
  );
  expect(reply.status).toBe(200);
  return (reply.body as { id: string }).id;
}

/** A 200 answer's JSON, with the server's address (each start picks anew) as `http://pigeonhole`. */
export async function answer(server: TestServer, url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const reply = await fetch(`${server.url}${url}`, { headers });
  expect(reply.status).toBe(200);
  return JSON.parse((await reply.text()).replaceAll(server.url, 'http://pigeonhole'));
}

/** Everything the inbox shows of every capture, and what search and the /v1 list answer. */
export async function inbox(server: TestServer): Promise<unknown> {
  const get = (url: string, headers: Record<string, string> = {}) => answer(server, url, headers);
  return {
    all: await get('/api/messages?limit=500'),
    search: await get('/api/messages?q=number%202'),
    unread: await get('/api/messages?read=false&limit=500'),
    bounced: await get('/api/messages?status=bounced'),
    v1: await get('/v1/email/list/?limit=100', { Authorization: 'Api-Key bulk-key' }),
    recipients: await get('/api/recipients?limit=500'),
    recipientSearch: await get('/api/recipients?q=cp2'),
    v1Recipients: await get('/v1/recipients/?limit=100', { Authorization: 'Api-Key bulk-key' }),
  };
}

/** A store with captures in every state a checkpoint keeps: read, bounced, deleted, SMTP. */
export async function filled(server: TestServer): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) ids.push(await send(server, i));
  const info = await smtpClient(server.smtpPort).sendMail({ from: 'a@example.com', to: 'smtp@example.com', subject: 'By SMTP', text: 'Plain SMTP body' });
  ids.push(capturedId(info.response));
  const messages = server.sandbox.messages;
  await messages.setRead((await messages.get(ids[3]!))!, true);
  await messages.setStatus((await messages.get(ids[4]!))!, 'bounced');
  await messages.remove([(await messages.get(ids[5]!))!.seq, (await messages.get(ids[12]!))!.seq]);
  return ids;
}
