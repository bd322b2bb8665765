import MailComposer from 'nodemailer/lib/mail-composer';
import { describe, expect, it } from 'vitest';
import { quickSummary } from '../../server/smtp/mime-summary.ts';
import { summarizeParts } from '../../server/smtp/parse-message.ts';
import { FIXTURE_MESSAGE } from '../../bench/lib/smtp-message.ts';

type Mail = ConstructorParameters<typeof MailComposer>[0];

/** As nodemailer's SMTP transport sends it: with CRLF line endings (the composer keeps a 7bit body's LFs). */
const build = async (mail: Mail): Promise<Buffer> =>
  crlf(
    (await new MailComposer({ from: 'Shop <shop@example.com>', to: 'ada@example.com', subject: 'Hello', ...mail }).compile().build()).toString('latin1'),
    'latin1',
  );

const crlf = (text: string, encoding: BufferEncoding = 'utf8') => Buffer.from(text.replace(/\r?\n/g, '\r\n'), encoding);

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const LONG = `${'A line of text that is long enough to be wrapped by quoted-printable encoding, '.repeat(4)}end.`;
const HTML = '<!doctype html><html lang="en"><head><style>p{color:red}</style></head><body><h1>Hi Ada</h1><p>Your code is <b>123 456</b>.</p></body></html>';

/** Messages as real senders build them (nodemailer's composer), the shapes the quick read must agree on. */
const composed: [string, Mail][] = [
  ['text only', { text: 'Hello Ada,\n\nyour order shipped.\n' }],
  ['HTML only', { html: HTML }],
  ['text and HTML', { text: 'Hello Ada', html: HTML }],
  ['UTF-8 text and HTML', { text: 'Grüße, Zoë — 🎉 ✓', html: '<p>Grüße, Zoë — 🎉 ✓</p>' }],
  ['long lines (quoted-printable)', { text: LONG, html: `<p>${LONG}</p>` }],
  ['base64 text encoding', { text: 'Base64 body\nline two', html: '<p>Base64 body</p>', textEncoding: 'base64' }],
  ['quoted-printable text encoding', { text: 'QP body = equals\nline two', html: '<p>QP = body</p>', textEncoding: 'quoted-printable' }],
  ['whitespace-only text', { text: '   \n  ', html: HTML }],
  ['empty text', { text: '', html: HTML }],
  ['text ending in blank lines', { text: 'Hello\n\n\n' }],
  ['a PDF attachment', { text: 'See attached', attachments: [{ filename: 'invoice.pdf', content: Buffer.alloc(3000, 7), contentType: 'application/pdf' }] }],
  [
    'attachments of several kinds',
    {
      text: 'Files',
      html: HTML,
      attachments: [
        { filename: 'notes.txt', content: 'plain text file\nsecond line\n' },
        { filename: 'data.csv', content: 'a,b\n1,2\n', contentTransferEncoding: '7bit' },
        { filename: 'raw.bin', content: Buffer.alloc(100, 1), contentType: 'application/octet-stream' },
        { filename: 'picture.png', content: PNG, contentType: 'application/octet-stream' },
        { content: Buffer.from('no name') },
        { filename: 'Résumé café.pdf', content: Buffer.alloc(10, 2) },
        { filename: `${'very-long-name-'.repeat(8)}.txt`, content: 'x' },
      ],
    },
  ],
  [
    'an inline image (multipart/related)',
    { html: '<p><img src="cid:logo@shop"></p>', attachments: [{ filename: 'logo.png', content: PNG, cid: 'logo@shop' }] },
  ],
  [
    'text, HTML, inline image and attachment (mixed > related > alternative)',
    {
      text: 'Hello',
      html: '<p><img src="cid:logo@shop"> Hello</p>',
      attachments: [
        { filename: 'logo.png', content: PNG, cid: 'logo@shop' },
        { filename: 'terms.pdf', content: Buffer.alloc(500, 3) },
      ],
    },
  ],
  ['a calendar alternative', { text: 'Invite', html: '<p>Invite</p>', icalEvent: { method: 'REQUEST', content: 'BEGIN:VCALENDAR\r\nEND:VCALENDAR' } }],
  ['an inline text attachment', { text: 'Body', attachments: [{ filename: 'inline.txt', content: 'shown inline', contentDisposition: 'inline' }] }],
  ['a text/html attachment', { text: 'Body', attachments: [{ filename: 'page.html', content: '<p>page</p>', contentType: 'text/html' }] }],
  ['an ISO-8859-1 text', { text: Buffer.from('caf\xe9', 'latin1') as unknown as string, headers: {} }],
];

/** Hand-written messages for the edges: the quick read must agree, or leave them to mailparser. */
const written: [string, Buffer][] = [
  ['no Content-Type', crlf('From: a@example.com\nSubject: x\n\nJust text\n')],
  ['no header block', crlf('\nJust text\n')],
  ['an empty line before the headers', crlf('\nFrom: a@example.com\nContent-Type: text/plain\n\nbody\n')],
  ['a boundary on a type that is not multipart', crlf('Content-Type: text/plain; boundary=b\n\n--b\nContent-Type: text/html\n\n<p>hi</p>\n--b--\n')],
  ['no body', crlf('From: a@example.com\nSubject: x\n')],
  ['single-part HTML, 7bit', crlf('From: a@example.com\nContent-Type: text/html; charset=utf-8\n\n<p>Hi</p>\n\n')],
  [
    'folded Content-Type, quoted boundary',
    crlf(
      'Content-Type: multipart/alternative;\n boundary="=_b (1)"\n\n--=_b (1)\nContent-Type: text/plain\n\nplain\n--=_b (1)\nContent-Type: text/html\n\n<b>html</b>\n--=_b (1)--\n',
    ),
  ],
  ['preamble and epilogue', crlf('Content-Type: multipart/mixed; boundary=b\n\nThis is a preamble.\n--b\nContent-Type: text/plain\n\nbody\n--b--\nepilogue\n')],
  [
    'upper-case header names and values',
    crlf(
      'CONTENT-TYPE: MULTIPART/MIXED; BOUNDARY=XyZ\n\n--XyZ\nCONTENT-TYPE: TEXT/PLAIN; CHARSET=US-ASCII\n\nbody\n--XyZ\nContent-Type: IMAGE/PNG; name=a.png\nContent-Transfer-Encoding: BASE64\n\niVBORw0KGgo=\n--XyZ--\n',
    ),
  ],
  [
    'text and HTML siblings in mixed',
    crlf('Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nplain\n--b\nContent-Type: text/html\n\n<p>html</p>\n--b--\n'),
  ],
  [
    'HTML then text in mixed',
    crlf('Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/html\n\n<p>html</p>\n--b\nContent-Type: text/plain\n\n\n--b--\n'),
  ],
  [
    'two text parts in mixed',
    crlf('Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\none\n--b\nContent-Type: text/plain\n\ntwo\n--b--\n'),
  ],
  [
    'an empty text part',
    crlf('Content-Type: multipart/alternative; boundary=b\n\n--b\nContent-Type: text/plain\n\n\n--b\nContent-Type: text/html\n\n<p>x</p>\n--b--\n'),
  ],
  [
    'an unknown disposition',
    crlf(
      'Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nbody\n--b\nContent-Type: text/plain\nContent-Disposition: form-data; name=x\n\nfield\n--b--\n',
    ),
  ],
  [
    'a 7bit text attachment',
    crlf(
      'Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nbody\n--b\nContent-Type: text/plain; name=a.txt\nContent-Disposition: attachment\n\nline one\nline two\n\n--b--\n',
    ),
  ],
  [
    'Content-ID without brackets',
    crlf(
      'Content-Type: multipart/related; boundary=b\n\n--b\nContent-Type: text/html\n\n<img src="cid:x">\n--b\nContent-Type: image/png\nContent-ID: x@y\nContent-Transfer-Encoding: base64\n\niVBORw0KGgo=\n--b--\n',
    ),
  ],
  [
    'base64 with stray characters',
    crlf(
      'Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nbody\n--b\nContent-Type: application/pdf; name=a.pdf\nContent-Transfer-Encoding: base64\n\nJVBE Ri0x\nLjQK*\n--b--\n',
    ),
  ],
  [
    'quoted-printable soft breaks and escapes',
    crlf(
      'Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\nhttps://example.com/reset?token=3Dabc=\ndef and caf=C3=A9  \n',
    ),
  ],
  ['a delimiter-like line that is not one', crlf('Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\n--bx is content\n--b--\n')],
  ['format=flowed', crlf('Content-Type: text/plain; format=flowed\n\nflowed \ntext\n')],
  ['an ISO-8859-1 body', Buffer.from('Content-Type: text/plain; charset=iso-8859-1\r\n\r\ncaf\xe9\r\n', 'latin1')],
  ['bare LF line endings', Buffer.from('Content-Type: text/plain\n\nbody\n')],
  [
    'an attached message',
    crlf(
      'Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nfwd\n--b\nContent-Type: message/rfc822\n\nSubject: inner\n\ninner body\n--b--\n',
    ),
  ],
  ['no closing delimiter', crlf('Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nbody\n')],
  [
    'encoded-word filename',
    crlf(
      'Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nbody\n--b\nContent-Type: application/pdf; name="=?UTF-8?Q?R=C3=A9sum=C3=A9.pdf?="\nContent-Transfer-Encoding: base64\n\nJVBERi0=\n--b--\n',
    ),
  ],
  ['a message that is one attachment', crlf('Content-Type: application/pdf; name=scan.pdf\nContent-Transfer-Encoding: base64\n\nJVBERi0xLjQK\n')],
  ['a line over 60 KB', crlf(`Content-Type: text/html\n\n<p>${'x'.repeat(70 * 1024)}</p>\n`)],
  ['the benchmark message', FIXTURE_MESSAGE],
];

/** A small seeded generator (mulberry32), so a failure names a message that can be rebuilt. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  return { next, pick };
}

const BODIES = [
  '',
  '\n',
  '\n\n',
  'x\n\n\n',
  'Hello',
  'Hello\n',
  'line one\nline two\n\n',
  '  \n ',
  'Grüße 🎉\n',
  '<p>Hi <b>Ada</b></p>',
  `${LONG}\n`,
  '--not-a-delimiter\n',
  'a=b =3D\n',
];

/** One random MIME tree of the kinds mail clients send, written out with CRLF line endings. */
function randomMessage(seed: number): Buffer {
  const { next, pick } = random(seed);
  let boundaries = 0;
  const leaf = (): string => {
    const type = pick(['text/plain', 'text/html', 'text/plain', 'text/html', 'image/png', 'application/pdf', 'application/octet-stream', 'text/csv']);
    const charset = type.startsWith('text/') ? pick(['', '; charset=utf-8', '; charset="UTF-8"', '; charset=us-ascii']) : '';
    const name = pick(['', '; name=file.bin', '; name="report 2026.pdf"', '; name=photo.png']);
    const disposition = pick([
      '',
      '',
      'Content-Disposition: inline\n',
      'Content-Disposition: attachment\n',
      'Content-Disposition: attachment; filename=a.txt\n',
      'Content-Disposition: inline; filename="x.html"\n',
    ]);
    const id = pick(['', '', 'Content-ID: <img1@example>\n', 'Content-ID: bare@example\n']);
    const encoding = pick(['', '7bit', '8bit', 'quoted-printable', 'base64', 'binary']);
    const body = pick(BODIES);
    const encoded =
      encoding === 'base64'
        ? Buffer.from(body)
            .toString('base64')
            .replace(/.{1,76}/g, '$&\n')
        : encoding === 'quoted-printable'
          ? body.replace(/=(?!3D)/g, '=3D')
          : body;
    return `Content-Type: ${type}${charset}${name}\n${encoding ? `Content-Transfer-Encoding: ${encoding}\n` : ''}${disposition}${id}\n${encoded}`;
  };
  const node = (depth: number): string => {
    if (depth > 2 || next() < 0.45) return leaf();
    const type = pick(['mixed', 'alternative', 'related']);
    const boundary = pick(['b', '=_Part_', '----=_NextPart_000', 'Apple-Mail=_5']) + boundaries++;
    const children = Array.from({ length: 1 + Math.floor(next() * 3) }, () => node(depth + 1));
    const preamble = pick(['', 'This is a multi-part message in MIME format.\n']);
    const epilogue = pick(['', '\n', 'epilogue\n']);
    const body = children.map((child) => `--${boundary}\n${child}${child.endsWith('\n') ? '' : '\n'}`).join('');
    return `Content-Type: multipart/${type};${pick([' ', '\n '])}boundary="${boundary}"\n\n${preamble}${body}--${boundary}--\n${epilogue}`;
  };
  return crlf(`From: a@example.com\nTo: b@example.com\nSubject: random ${seed}\nMIME-Version: 1.0\n${node(0)}`);
}

describe('the quick MIME summary', () => {
  it('gives exactly what mailparser gives on every message it reads, and reads the everyday shapes itself', async () => {
    const corpus: [string, Buffer][] = [
      ...(await Promise.all(composed.map(async ([name, mail]) => [name, await build(mail)] as [string, Buffer]))),
      ...written,
    ];
    const read: string[] = [];
    for (const [name, raw] of corpus) {
      const quick = quickSummary(raw);
      if (quick === null) continue;
      read.push(name);
      expect(quick, name).toStrictEqual(await summarizeParts(raw));
    }
    // What it leaves to mailparser: a charset to convert, flowed text, an attached message, text
    // that mailparser would also turn into HTML, and anything it cannot place for sure.
    expect(corpus.map(([name]) => name).filter((name) => !read.includes(name))).toEqual([
      'no header block',
      'an empty line before the headers',
      'a boundary on a type that is not multipart',
      'no body',
      'text and HTML siblings in mixed',
      'a delimiter-like line that is not one',
      'format=flowed',
      'an ISO-8859-1 body',
      'bare LF line endings',
      'an attached message',
      'no closing delimiter',
      'a line over 60 KB',
    ]);
  });

  it('agrees with mailparser on 1,000 random MIME trees, and reads most of them itself', async () => {
    let read = 0;
    for (let seed = 1; seed <= Number(process.env.SEEDS ?? 1000); seed++) {
      const raw = randomMessage(seed);
      const quick = quickSummary(raw);
      if (quick === null) continue;
      read++;
      expect(quick, `seed ${seed}:\n${raw.toString()}`).toStrictEqual(await summarizeParts(raw));
    }
    expect(read).toBeGreaterThan(600);
  });

  it('leaves a large message to mailparser', () => {
    expect(quickSummary(crlf(`Content-Type: text/plain\n\n${'x'.repeat(600 * 1024)}\n`))).toBeNull();
    expect(quickSummary(crlf('Content-Type: text/plain\n\nsmall\n'))).toStrictEqual({ html: false, text: true, snippet: 'small', attachments: [] });
  });
});
