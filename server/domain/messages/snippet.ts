import { decodeHTML } from 'entities';
import { collapseSpaces } from '../mail/whitespace.ts';

/** Characters of body text kept on each capture for the list preview. */
const SNIPPET_LENGTH = 200;
/** Characters of body text search looks in (the snippet's and more, issue 27). */
const BODY_TEXT_LENGTH = 1000;

/**
 * The start of a message's text, whitespace collapsed: the plain body when there is one,
 * otherwise the HTML body with its markup, styles and scripts removed.
 */
export function textSnippet(text: string | null, html: string | null): string {
  return bodyText(text, html).slice(0, SNIPPET_LENGTH);
}

/** The first BODY_TEXT_LENGTH characters of a message's text, as textSnippet reads it (the snippet is its start). */
function bodyText(text: string | null, html: string | null): string {
  // Bounded as the HTML is below: a huge text part costs no full pass per send.
  const source = text !== null && text.trim() !== '' ? text.slice(0, 64 * 1024) : html !== null ? htmlToText(html) : '';
  return collapseSpaces(source).trim().slice(0, BODY_TEXT_LENGTH);
}

/**
 * What a capture keeps for search beyond its snippet: the body's text (`body`, from bodyText)
 * when it says more than the snippet, else nothing (a short body is its snippet).
 */
function searchBody(snippet: string, body: string): { bodyText?: string } {
  return body === snippet || body === '' ? {} : { bodyText: body };
}

/**
 * A /v1 or flow capture's snippet, from its body as stored (`html`, in the account template when
 * one is used), and its search text, from the body as sent (`unwrapped`): the template's header
 * and footer are in every capture of the sender and say nothing about this one.
 */
export function captureTexts(text: string | null, html: string | null, unwrapped: string | null): { snippet: string; bodyText?: string } {
  if (html === unwrapped) return bodyTexts(text, html);
  const snippet = textSnippet(text, html);
  return { snippet, ...searchBody(snippet, bodyText(text, unwrapped)) };
}

/** A capture's snippet and its search text beyond it, from one reading of its body. */
export function bodyTexts(text: string | null, html: string | null): { snippet: string; bodyText?: string } {
  const body = bodyText(text, html);
  const snippet = body.slice(0, SNIPPET_LENGTH);
  return { snippet, ...searchBody(snippet, body) };
}

function htmlToText(html: string): string {
  // Only the start is needed; bounding the input keeps a huge body from costing a full pass.
  // Each step is one pass: the regular expressions they replace (`<[^>]*>`, `<!--[\s\S]*?-->`,
  // `<(head|style|script|title)\b[\s\S]*?<\/\1\s*>`) searched to the end of the text again
  // for every opening left unclosed, which a body of `<head <head ...` made quadratic (issue 19).
  // Entities are decoded last, as a browser shows the text: every named one (`&middot;`, and the
  // legacy ones without a semicolon), decimal and hex; `entities` reads each through a trie, so
  // a run of `&` or of letters stays linear.
  const start = html.slice(0, 64 * 1024);
  return decodeHTML(withoutTags(withoutComments(withoutHiddenBlocks(start))));
}

/** Where a span opens (`at`) and from where its end is looked for; its end's start and the index after it. */
type Opening = { at: number; endFrom: number; kind: string };
type Ending = { start: number; after: number };

/**
 * The text with each span, from an opening to the first end of its kind after it, replaced by a
 * space, leftmost first, as a global replace does. An end once found serves every later opening
 * before it, and a kind with no end ahead is never looked for again: each character is read a
 * bounded number of times.
 */
function replaceSpans(text: string, open: (from: number) => Opening | null, end: (kind: string, from: number) => Ending | null): string {
  const out: string[] = [];
  const known = new Map<string, Ending | null>();
  let at = 0;
  for (let found = open(0); found !== null; found = open(at)) {
    let ending = known.get(found.kind);
    if (ending === undefined || (ending !== null && ending.start < found.endFrom)) {
      ending = end(found.kind, found.endFrom);
      known.set(found.kind, ending);
    }
    if (ending === null) {
      // No end of this kind ahead: this opening is text; look past it.
      out.push(text.slice(at, found.at + 1));
      at = found.at + 1;
      continue;
    }
    out.push(text.slice(at, found.at), ' ');
    at = ending.after;
  }
  out.push(text.slice(at));
  return out.join('');
}

const nextOf = (text: string, marker: string, from: number) => {
  const at = text.indexOf(marker, from);
  return at < 0 ? null : at;
};

function withoutTags(text: string): string {
  return replaceSpans(
    text,
    (from) => {
      const at = nextOf(text, '<', from);
      return at === null ? null : { at, endFrom: at + 1, kind: '>' };
    },
    (_, from) => {
      const start = nextOf(text, '>', from);
      return start === null ? null : { start, after: start + 1 };
    },
  );
}

function withoutComments(text: string): string {
  return replaceSpans(
    text,
    (from) => {
      const at = nextOf(text, '<!--', from);
      return at === null ? null : { at, endFrom: at + 4, kind: '-->' };
    },
    (_, from) => {
      const start = nextOf(text, '-->', from);
      return start === null ? null : { start, after: start + 3 };
    },
  );
}

const HIDDEN_BLOCKS = ['head', 'style', 'script', 'title'];

/** `<head>`, `<style>`, `<script>` and `<title>` blocks, each to its first closing tag (any case). */
function withoutHiddenBlocks(text: string): string {
  // ASCII letters lowered only, so indices stay those of `text`.
  const lower = text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
  return replaceSpans(
    text,
    (from) => {
      for (let at = lower.indexOf('<', from); at >= 0; at = lower.indexOf('<', at + 1)) {
        for (const name of HIDDEN_BLOCKS) {
          if (lower.startsWith(name, at + 1) && !/\w/.test(lower[at + name.length + 1] ?? '')) return { at, endFrom: at + name.length + 1, kind: name };
        }
      }
      return null;
    },
    (name, from) => {
      for (let start = lower.indexOf(`</${name}`, from); start >= 0; start = lower.indexOf(`</${name}`, start + 1)) {
        let after = start + name.length + 2;
        while (/\s/.test(lower[after] ?? '')) after++;
        if (lower[after] === '>') return { start, after: after + 1 };
      }
      return null;
    },
  );
}
