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
