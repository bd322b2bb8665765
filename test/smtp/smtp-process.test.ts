import { afterAll, describe, expect, it } from 'vitest';
import { processTracker } from '../support/process-helpers.ts';
import { read } from '../support/app.ts';
import { rawSmtp, smtpClient } from '../support/smtp.ts';

const processes = processTracker();
afterAll(() => processes.cleanup());

describe('SMTP in the real server process', () => {
  it('prints its address, finishes a session in flight on SIGTERM, and keeps what it accepted', async () => {
    const dataDir = await processes.tempDir('pigeonhole-smtp-');
    const server = await processes.spawn({ dataDir });
    expect(server.output()).toMatch(new RegExp(`SMTP capture: +smtp://127\\.0\\.0\\.1:${server.smtpPort}\\n`));
    await smtpClient(server.smtpPort).sendMail({ from: 'a@example.com', to: 'first@example.com', subject: 'First', text: 'one' });

    const session = await rawSmtp(server.smtpPort);
    await session.command('EHLO test');
    await session.command('MAIL FROM:<a@example.com>');
    await session.command('RCPT TO:<inflight@example.com>');
    expect(await session.command('DATA')).toMatch(/^354 /);
    const exited = server.stop('SIGTERM');
    await expect.poll(() => server.output()).toContain('Pigeonhole stopping (SIGTERM)');
    expect(await session.command('Subject: In flight\r\n\r\nsent while stopping\r\n.')).toMatch(/^250 2\.0\.0 Captured as \w+$/);
    await session.command('QUIT');
    expect(await exited).toBe(0);

    const again = await processes.spawn({ dataDir });
    const list = (await read(await fetch(`${again.url}/api/messages`))).body as any;
    expect(list.messages.map((m: any) => [m.subject, m.source])).toEqual([
      ['In flight', 'smtp'],
      ['First', 'smtp'],
    ]);
    await again.stop();
  });
});
