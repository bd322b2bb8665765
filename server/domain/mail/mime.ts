import { createRequire } from 'node:module';
import type MailComposerClass from 'nodemailer/lib/mail-composer';

/** nodemailer's composer, loaded with the first message built rather than with the server (its CommonJS build). */
let composerClass: typeof MailComposerClass | null = null;

interface MimeAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
  contentId?: string;
}

export interface MimeInput {
  messageId: string;
  date: Date;
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  html: string | null;
  text: string | null;
  attachments: MimeAttachment[];
  headers: Record<string, string>;
  /** The shared part of the MIME boundaries: the same value gives the same bytes. */
  baseBoundary: string;
}

/** Builds the RFC 5322 message a recipient would receive, with nodemailer's composer. */
export function buildMime(input: MimeInput): Promise<Buffer> {
  composerClass ??= createRequire(import.meta.url)('nodemailer/lib/mail-composer') as typeof MailComposerClass;
  const composer = new composerClass({
    messageId: input.messageId,
    date: input.date,
    from: input.from,
    to: input.to,
    cc: input.cc.length > 0 ? input.cc : undefined,
    subject: input.subject,
    html: input.html ?? undefined,
    text: input.text ?? undefined,
    attachments: input.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
      cid: a.contentId,
    })),
    headers: input.headers,
    baseBoundary: input.baseBoundary,
  });
  return composer.compile().build();
}
