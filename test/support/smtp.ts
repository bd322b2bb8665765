import nodemailer, { type SendMailOptions } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';

/** A real SMTP client (nodemailer) for the capture server on 127.0.0.1. */
export function smtpClient(port: number, auth?: { user: string; pass: string; method?: 'PLAIN' | 'LOGIN' }) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    ...(auth ? { auth: { user: auth.user, pass: auth.pass }, authMethod: auth.method ?? 'PLAIN' } : {}),
  } satisfies SMTPTransport.Options);
}

/** Sends and resolves with the server's reply, or with the refusal (code and text) as a value. */
export async function trySend(
  transport: ReturnType<typeof smtpClient>,
  mail: SendMailOptions,
): Promise<{ ok: true; response: string } | { ok: false; code: number | undefined; response: string }> {
  try {
    const info = await transport.sendMail(mail);
    return { ok: true, response: info.response };
  } catch (error) {
    const e = error as { responseCode?: number; response?: string; message: string };
    return { ok: false, code: e.responseCode, response: e.response ?? e.message };
  }
}

/** The capture id from a "250 2.0.0 Captured as <id>" reply. */
export function capturedId(response: string): string {
  const match = /Captured as (\w+)/.exec(response);
  if (!match) throw new Error(`not a capture reply: ${response}`);
  return match[1]!;
}

/**
 * A bare SMTP conversation over a socket, one command at a time, for what a client library
 * does not let a test do between commands (pause after RCPT TO, send raw lines).
 */
export async function rawSmtp(port: number, options: { localAddress?: string } = {}) {
  const { createConnection } = await import('node:net');
  // localAddress: another loopback address (127.0.0.2) is another client to the server.
  const socket = createConnection({ host: '127.0.0.1', port, ...options });
  let buffer = '';
  let waiting: ((reply: string) => void) | undefined;
  const check = () => {
    const match = /(?:^|\r\n)(\d{3}) [^\r\n]*\r\n$/.exec(buffer);
    if (match && waiting) {
      const reply = buffer.trimEnd();
      buffer = '';
      const resolve = waiting;
      waiting = undefined;
      resolve(reply);
    }
  };
  socket.setEncoding('utf8');
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    check();
  });
  let failing: ((error: Error) => void) | undefined;
  socket.on('error', (error) => failing?.(error));
  const next = () =>
    new Promise<string>((resolve, reject) => {
      waiting = resolve;
      failing = reject;
      check();
    });
  const greeting = await next();
  return {
    greeting,
    /** Sends one line (CRLF added) and resolves with the whole reply. */
    command(line: string): Promise<string> {
      const reply = next();
      socket.write(`${line}\r\n`);
      return reply;
    },
    close: () => new Promise<void>((resolve) => socket.end(resolve)),
    /** Resolves once the connection is closed, by either side. */
    ended,
    /** What the server sent that no command waited for (a 421 before it closes), trimmed. */
    lastReply: () => buffer.trimEnd(),
    /** Writes what is given (no line end) and drops the connection, like a crashed client. */
    destroy(partial = '') {
      socket.write(partial, () => socket.destroy());
    },
  };
}
