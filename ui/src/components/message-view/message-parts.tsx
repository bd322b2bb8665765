import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { visibleFileName } from '../../../../server/domain/mail/file-name.ts';
import { fileSize, fullTime } from '../../format.ts';
import { reason, sandbox } from '../../sandbox.ts';
import { useLoad } from '../../state/hooks.ts';
import type { MessageDetail } from '../../types.ts';
import { StatusBadge } from '../badges/badges.tsx';
import { SourceLines } from '../check/source-view.tsx';
import styles from './message-parts.module.css';

/**
 * The plain-text body as captured, or the HTML rendered as text when there is none (said so),
 * above it the one-time codes and links the sandbox found (the same extraction as the API's).
 */
export function TextPart({ message }: { message: MessageDetail }) {
  const links = message.links ?? [];
  const codes = message.codes ?? [];
  return (
    <>
      {message.text_derived ? (
        <p class={`part-toolbar ${styles.derivedNote}`} role="note">
          <span class={styles.derivedTag}>Derived</span>
          <span>This email has no plain-text part: this is its HTML rendered as text.</span>
        </p>
      ) : null}
      {codes.length > 0 || links.length > 0 ? (
        <section class={styles.found} aria-label="Codes and links found">
          {codes.length > 0 ? (
            <div class={styles.foundRow}>
              <span class={styles.foundLabel}>{codes.length === 1 ? 'Code' : 'Codes'}</span>
              {codes.map((code) => (
                <code key={code} class={styles.foundCode}>
                  {code}
                </code>
              ))}
            </div>
          ) : null}
          {links.length > 0 ? (
            <div class={styles.foundRow}>
              <span class={styles.foundLabel}>{links.length === 1 ? 'Link' : `Links (${links.length})`}</span>
              <ol class={styles.foundLinks}>
                {links.map((link) => (
                  <li key={link.href}>
                    <a href={link.href} target="_blank" rel="noopener noreferrer">
                      {link.text && link.text !== link.href ? <span class={styles.foundLinkText}>{link.text}</span> : null}
                      <span class={styles.foundHref}>{link.href}</span>
                    </a>
                  </li>
                ))}
              </ol>
            </div>
          ) : null}
        </section>
      ) : null}
      {message.text ? <pre class="code-block wrap">{message.text}</pre> : <p class="muted pad">This email has no text or HTML body.</p>}
    </>
  );
}

/** Every header of the stored .eml, in order. */
export function HeadersPart({ message }: { message: MessageDetail }) {
  const headers = message.headers ?? [];
  if (headers.length === 0) return <p class="muted pad">No headers available for this capture.</p>;
  return (
    <table class={`kv ${styles.headers}`}>
      <tbody>
        {headers.map((h, i) => (
          <tr key={i}>
            <th scope="row">{h.name}</th>
            <td>{h.value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The source: the HTML as the email's author wrote it (decoded from its transfer encoding, so no
 * `=3D`), numbered and wrapped; the RFC 5322 message as it travelled one click away, and the .eml.
 */
export function SourcePart({ message }: { message: MessageDetail }) {
  const [shown, setShown] = useState<'html' | 'raw'>(message.html === null ? 'raw' : 'html');
  const view = message.html === null ? 'raw' : shown;
  return (
    <div>
      <div class="part-toolbar">
        <div class="segmented" role="group" aria-label="Source shown">
          <button type="button" aria-pressed={view === 'html'} disabled={message.html === null} onClick={() => setShown('html')} title="The HTML part, decoded">
            HTML
          </button>
          <button type="button" aria-pressed={view === 'raw'} onClick={() => setShown('raw')} title="The message as it travelled (RFC 5322)">
            Raw message
          </button>
        </div>
        <a class="button" href={`${message.raw_url}?download`} download={`${message.id}.eml`}>
          Download .eml
        </a>
      </div>
      {view === 'html' && message.html !== null ? <SourceLines text={message.html} /> : <RawMessage message={message} />}
    </div>
  );
}

function RawMessage({ message }: { message: MessageDetail }) {
  const raw = useLoad((signal) => sandbox.raw(message.id, { signal }), [message.id]);
  if (raw.error) return <p class="error pad">Could not load the source: {reason(raw.error)}</p>;
  return (
    <>
      {raw.data !== undefined ? <p class="muted small pad">{fileSize(new Blob([raw.data]).size)} as it travelled</p> : null}
      <pre class="code-block wrap">{raw.data ?? 'Loading…'}</pre>
    </>
  );
}

/** Attachments: download each; images are previewed. */
export function AttachmentsPart({ message }: { message: MessageDetail }) {
  if (message.attachments.length === 0) return <p class="muted pad">No attachments.</p>;
  // A capture's detail lists its first 100 attachments; the rest are counted.
  const more = message.attachment_count - message.attachments.length;
  return (
    <>
      <ul class={styles.attachments}>
        {message.attachments.map((a, i) => (
          <li key={i} class={styles.attachment}>
            {a.content_type.startsWith('image/') ? (
              <a href={a.url} target="_blank" rel="noopener noreferrer" class={styles.thumb}>
                <img src={a.url} alt={visibleFileName(a.filename)} loading="lazy" />
              </a>
            ) : (
              <span class={`${styles.thumb} ${styles.fileIcon}`} aria-hidden="true">
                {extension(a.filename)}
              </span>
            )}
            <span class={styles.attachmentMeta}>
              <span class={styles.attachmentName} dir="auto">
                {visibleFileName(a.filename) || `attachment-${i + 1}`}
              </span>
              <span class="muted">
                {a.content_type} · {fileSize(a.size)}
                {a.content_id ? ` · inline (cid:${a.content_id})` : ''}
              </span>
            </span>
            <a class="button" href={`${a.url}?download`} download={visibleFileName(a.filename)}>
              Download
            </a>
          </li>
        ))}
      </ul>
      {more > 0 ? <p class="muted pad">and {more.toLocaleString('en')} more, not listed</p> : null}
    </>
  );
}

function extension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1, dot + 5).toUpperCase() : 'FILE';
}

/** The record the API kept: who sent it, to whom, and what the sandbox did with it. */
export function RecordPart({ message }: { message: MessageDetail }) {
  const rows: [string, ComponentChildren][] = [
    ['Email id', <code>{message.id}</code>],
    ['Source', message.source.toUpperCase()],
    ['Team', message.team ?? '—'],
    ['Sender', message.sender ?? '— (anonymous SMTP)'],
    ['From', <bdi>{message.from}</bdi>],
    ['Original recipient', <bdi>{message.recipient}</bdi>],
    [
      'Effective recipient',
      <bdi>{[...message.to, ...message.cc.map((c) => `${c} (cc)`), ...message.bcc.map((b) => `${b} (bcc)`)].join(', ') || message.recipient}</bdi>,
    ],
    ['Redirected (Development Mode)', message.redirected ? 'yes' : 'no'],
    ['Blocked', message.blocked ? 'yes: nothing was delivered' : 'no'],
    ['Delivery status', <StatusBadge status={message.status} />],
    ['SES message id', message.ses_id ? <code>{message.ses_id}</code> : '—'],
    ['Account template used', message.used_template === undefined ? '—' : message.used_template ? 'yes' : 'no'],
    ['Flags', message.flags && message.flags.length > 0 ? message.flags.join(', ') : '—'],
    ['Name', [message.first_name, message.last_name].filter(Boolean).join(' ') || '—'],
    ['Flow', message.flow ? `${message.flow.trigger}, step ${message.flow.step}` : '—'],
    ['Encrypted at rest', message.encrypted ? 'yes (Encryption-Key)' : 'no'],
    ['Captured', fullTime(message.created_at)],
  ];
  return (
    <table class="kv">
      <tbody>
        {rows.map(([label, value]) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
