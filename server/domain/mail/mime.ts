import MailComposer from 'nodemailer/lib/mail-composer';

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
  const composer = new MailComposer({
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
