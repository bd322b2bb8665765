import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * The SMTP ceiling: smtp-server and mailparser, the versions the app uses, set up as the app's
 * capture is (server/smtp/smtp-server.ts: no STARTTLS, AUTH optional, no reverse DNS lookup, the
 * same size limit, the same parser options), parsing every message fully and storing nothing.
 * A message is answered 250 once it is parsed.
 */
export function createBareSmtp(): SMTPServer {
  return new SMTPServer({
    name: 'bare-smtp',
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    size: 25 * 1024 * 1024,
    logger: false,
    disableReverseLookup: true,
    onData(stream, _session, callback) {
      simpleParser(stream, { keepCidLinks: true, skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true }).then(
        (parsed) => callback(null, `parsed: ${parsed.subject ?? ''}`.slice(0, 100)),
        (error: Error) => callback(error),
      );
    },
  });
}
