import type { ComponentChildren } from 'preact';

/**
 * A caniemail note as it reads on caniemail.com: its inline Markdown (`code` and [text](url))
 * shown as code and links, everything else as text. Never HTML: the note's text goes into text
 * nodes, and only an http(s) URL becomes a link. One pass over the note.
 */
export function NoteText({ text }: { text: string }) {
  return <>{inlineMarkdown(text)}</>;
}

function inlineMarkdown(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let plain = '';
  let at = 0;
  const flush = () => {
    if (plain) out.push(plain);
    plain = '';
  };
  while (at < text.length) {
    const c = text[at]!;
    if (c === '`') {
      const end = text.indexOf('`', at + 1);
      if (end > at + 1) {
        flush();
        out.push(<code key={at}>{text.slice(at + 1, end)}</code>);
        at = end + 1;
        continue;
      }
    } else if (c === '[') {
      const close = text.indexOf('](', at + 1);
      const end = close < 0 ? -1 : text.indexOf(')', close + 2);
      const label = close < 0 ? '' : text.slice(at + 1, close);
      const url = end < 0 ? '' : text.slice(close + 2, end).trim();
      if (end > 0 && label && !label.includes('[') && /^https?:\/\/[^\s]+$/i.test(url)) {
        flush();
        out.push(
          <a key={at} href={url} target="_blank" rel="noopener noreferrer">
            {label}
          </a>,
        );
        at = end + 1;
        continue;
      }
    }
    plain += c;
    at++;
  }
  flush();
  return out;
}
