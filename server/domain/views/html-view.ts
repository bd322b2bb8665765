import { ATTRIBUTES, elementFeatures, INPUT_TYPES, TAGS } from '../check/features.ts';
import { HtmlParser } from '../mail/html-parser.ts';
import { filterStyleAttribute, filterStylesheet, short, type CssView } from './css-filter.ts';
import { escapeAttribute, imageBox } from './images-off.ts';
import { lineNumbers } from '../mail/line-numbers.ts';

/** Unsupported elements that go with everything in them; any other unsupported element is unwrapped (its content stays). */
const REMOVED_WHOLE = new Set([
  'svg',
  'object',
  'embed',
  'video',
  'audio',
  'progress',
  'meter',
  'dialog',
  'select',
  'textarea',
  'style',
  'link',
  'base',
  'hr',
  'map',
  'input',
  'meta',
]);
/** The caniemail notes the views apply to partial support. */
const BODY_AS_DIV = 'Replaced by a `<div>`';
const NO_BODY_STYLE = 'Not supported inside the `<body>`';
const BACKGROUND_ON_BODY = 'Only supported on the `<body>` element';
const STYLE_16KB = 'is limited to 16 KB';
const STYLE_MAX_CHARS = 16 * 1024;

interface Edit {
  start: number;
  end: number;
  text: string;
  /** It removes or replaces whole tags (not a part of one, as an attribute is). */
  tags?: boolean;
}

interface Open {
  name: string;
  start: number;
  /** Its open tag was removed: its explicit close tag goes too. */
  unwrapped?: boolean;
  /** `<body>` shown as a `<div>`. */
  renamed?: boolean;
  /** A kept `<style>`: where its text starts. */
  cssStart?: number;
  cssLine?: number;
}

interface Attribute {
  name: string;
  value: string;
  start: number;
  end: number;
}

export interface HtmlViewResult {
  html: string;
  /** Elements still open where the input ended (innermost last): a clipped view closes them before its marker. */
  open: string[];
}

/**
 * The HTML as a client shows it: one pass of the project's parser collects edits (elements,
 * attributes and declarations the client drops, `<style>` sheets filtered), then the edits are
 * applied in order. Linear in the input; nothing is re-parsed.
 */
export function viewHtml(input: string, view: CssView): HtmlViewResult {
  const lineOf = lineNumbers(input);
  const { removals } = view;
  const edits: Edit[] = [];
  const stack: Open[] = [];
  let attributes: Attribute[] = [];
  let removing: { depth: number; start: number } | null = null;
  let inBody = false;
  let finishing = false;

  const unsupported = (slugs: (string | undefined)[]) => removals.firstUnsupported(slugs.filter((s): s is string => s !== undefined));

  const open = (name: string, start: number, end: number) => {
    const line = lineOf(start);
    const attribs: Record<string, string> = {};
    for (const a of attributes) attribs[a.name] = a.value;
    const entry: Open = { name, start };
    if (view.imagesOff) {
      if (name === 'img') {
        edits.push({ start, end: end + 1, text: imageBox(attribs, line, removals), tags: true });
        return entry;
      }
    } else {
      const tagSlug = unsupported([
        TAGS[name],
        name === 'input' ? INPUT_TYPES[(attribs.type ?? 'text').toLowerCase()] : undefined,
        buttonSlug(name, attribs),
        metaSlug(name, attribs),
      ]);
      const styleInBody = name === 'style' && inBody && removals.hasNote('html-style', NO_BODY_STYLE);
      if (tagSlug !== null || styleInBody) {
        if (tagSlug !== null) removals.unsupportedFeature(tagSlug, `element ${name}`, `<${name}>`, line);
        else removals.noted('html-style', 'in body', '<style> inside <body>', `Partial. ${NO_BODY_STYLE}.`, line);
        if (REMOVED_WHOLE.has(name) || styleInBody) removing = { depth: stack.length, start };
        else {
          entry.unwrapped = true;
          edits.push({ start, end: end + 1, text: '', tags: true });
          return entry;
        }
        return entry;
      }
      if (name === 'body' && removals.hasNote('html-body', BODY_AS_DIV)) {
        entry.renamed = true;
        removals.noted('html-body', 'renamed', '<body> (shown as a <div>)', `Partial. ${BODY_AS_DIV} with supported attributes.`, line);
        edits.push({ start: start + 1, end: start + 5, text: 'div' });
      }
    }
    for (const a of attributes) attributeEdit(name, a, line);
    return entry;
  };

  const attributeEdit = (element: string, a: Attribute, line: number) => {
    if (a.name === 'style') {
      const kept = filterStyleAttribute(a.value, line, view);
      if (kept !== null) edits.push({ start: a.start, end: a.end, text: kept === '' ? '' : `style="${escapeAttribute(kept)}"` });
      return;
    }
    if (view.imagesOff) {
      if (a.name === 'background' && a.value.trim() !== '') {
        removals.other('images-off', 'attribute', `background="${short(a.value)}"`, 'Images are blocked: background images do not load.', null, line);
        edits.push({ start: a.start, end: a.end, text: '' });
      }
      return;
    }
    const slugs: string[] = [];
    const attribute = ATTRIBUTES[a.name];
    if (attribute) slugs.push(attribute);
    if ((element === 'img' && a.name === 'src') || (element === 'a' && a.name === 'href'))
      elementFeatures({ name: element, attribs: { [a.name]: a.value }, line, parent: -1 }, true, (slug) => slugs.push(slug));
    const slug = unsupported(slugs);
    if (slug === null) {
      if (a.name === 'background' && element !== 'body' && removals.hasNote('html-background', BACKGROUND_ON_BODY)) {
        removals.noted('html-background', 'not body', `background="${short(a.value)}" on <${element}>`, `Partial. ${BACKGROUND_ON_BODY}.`, line);
        edits.push({ start: a.start, end: a.end, text: '' });
      }
      return;
    }
    removals.unsupportedFeature(slug, `attribute ${a.name}`, `${a.name}="${short(a.value)}" on <${element}>`, line);
    edits.push({ start: a.start, end: a.end, text: '' });
  };

  const parser: HtmlParser = new HtmlParser(
    {
      onopentagname() {
        attributes = [];
      },
      onattribute(name, value) {
        attributes.push({ name, value, start: parser.startIndex, end: parser.endIndex });
      },
      onopentag(name) {
        const start = parser.startIndex;
        if (removing !== null) {
          stack.push({ name, start });
          return;
        }
        const entry = open(name, start, parser.endIndex);
        if (name === 'body') inBody = true;
        if (name === 'style' && removing === null) {
          entry.cssStart = parser.endIndex + 1;
          entry.cssLine = lineOf(entry.cssStart);
        }
        stack.push(entry);
      },
      onclosetag(name, implied) {
        const entry = stack.pop();
        if (!entry) return;
        if (name === 'body') inBody = false;
        // Where the element ends: after its close tag, after itself (void or self-closing), or
        // where the token that closed it starts (or the end of the input).
        const end = !implied ? parser.endIndex + 1 : parser.startIndex === entry.start ? parser.endIndex + 1 : finishing ? input.length : parser.startIndex;
        if (removing !== null) {
          if (stack.length === removing.depth) {
            edits.push({ start: removing.start, end, text: '', tags: true });
            removing = null;
          }
          return;
        }
        if (entry.cssStart !== undefined) {
          const cssEnd = implied ? end : parser.startIndex;
          const lineBase = entry.cssStart;
          const css = input.slice(lineBase, cssEnd);
          if (!view.imagesOff && css.length > STYLE_MAX_CHARS && removals.hasNote('html-style', STYLE_16KB)) {
            // The whole element goes: Gmail drops a <style> over 16 KB.
            removals.noted(
              'html-style',
              'over 16 KB',
              `<style> of ${Math.round(css.length / 1024)} KB`,
              'The size of the `<style>` tag is limited to 16 KB.',
              entry.cssLine ?? 1,
            );
            edits.push({ start: entry.start, end, text: '', tags: true });
            return;
          }
          view.lineAt = (offset) => lineOf(lineBase + offset);
          const filtered = filterStylesheet(css, view);
          if (filtered !== null) edits.push({ start: lineBase, end: cssEnd, text: filtered });
        }
        if (!implied && entry.unwrapped) edits.push({ start: parser.startIndex, end, text: '', tags: true });
        if (!implied && entry.renamed) edits.push({ start: parser.startIndex + 2, end: parser.startIndex + 6, text: 'div' });
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.write(input);
  const stillOpen = stack.map((e) => (e.renamed ? 'div' : e.name));
  finishing = true;
  parser.end();
  return { html: applyEdits(input, edits), open: stillOpen };
}

function buttonSlug(name: string, attribs: Record<string, string>): string | undefined {
  if (name !== 'button') return undefined;
  const type = (attribs.type ?? '').toLowerCase();
  return type === 'reset' ? 'html-button-reset' : type === 'submit' ? 'html-button-submit' : undefined;
}

function metaSlug(name: string, attribs: Record<string, string>): string | undefined {
  return name === 'meta' && (attribs.name ?? '').toLowerCase() === 'color-scheme' ? 'html-meta-color-scheme' : undefined;
}

function applyEdits(input: string, edits: readonly Edit[]): string {
  const out: string[] = [];
  let from = 0;
  for (const edit of edits) {
    // An edit inside one already applied (never expected: removed elements record nothing inside) is skipped.
    if (edit.start < from) continue;
    let before = input.slice(from, edit.start);
    if (edit.tags) {
      // A `<` of the text just before a removed tag would otherwise meet the text after it and
      // make a tag that was never there (`<<svg></svg>svg>` would become `<svg>`): it is escaped.
      const lt = before.lastIndexOf('<');
      if (lt >= 0 && before.indexOf('>', lt) < 0) before = `${before.slice(0, lt)}&lt;${before.slice(lt + 1)}`;
    }
    out.push(before, edit.text);
    from = edit.end;
  }
  out.push(input.slice(from));
  return out.join('');
}
