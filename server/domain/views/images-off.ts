import { parseDeclarations } from '../check/css-scan.ts';
import type { Removals } from './removals.ts';

const BOX =
  'display:inline-block;box-sizing:border-box;max-width:100%;overflow:hidden;vertical-align:top;padding:4px;border:1px dashed #8a8f98;background:#f1f3f4;color:#3c4043;font:13px/1.4 Arial,Helvetica,sans-serif;text-align:center;white-space:normal';
const MISSING = 'border:2px solid #d93025;background:#fce8e6;color:#a50e0e';

/**
 * An `<img>` as a client with images off shows it: a box of its size with its alt text; a
 * decorative image (`alt=""`) an empty box; an image without alt a warning naming the file.
 */
export function imageBox(attribs: Record<string, string>, line: number, removals: Removals): string {
  const alt = attribs.alt;
  const size = boxSize(attribs);
  if (alt === undefined) {
    removals.other(
      'images-off',
      'no alt',
      `<img src="${fileName(attribs.src ?? '')}">`,
      'Images are blocked and this image has no alt attribute: readers see nothing (or the file name) in its place.',
      'accessibility/img-alt',
      line,
    );
    return box(`${size}${MISSING}`, `No alt text: ${fileName(attribs.src ?? '')}`, 'missing');
  }
  if (alt.trim() === '') {
    removals.other('images-off', 'decorative', '<img alt="">', 'Images are blocked: a decorative image (alt="") leaves an empty space.', null, line);
    return box(size, '', 'decorative');
  }
  removals.other('images-off', 'alt', '<img alt="…">', 'Images are blocked: each image shows its alt text instead.', null, line);
  return box(size, alt, 'alt');
}

function box(style: string, text: string, kind: string): string {
  // A decorative image is hidden from screen readers, as alt="" asks.
  const role = text === '' ? 'aria-hidden="true"' : `role="img" aria-label="${escapeAttribute(text)}"`;
  return `<span data-pigeonhole-image-off="${kind}" ${role} style="${BOX};${style}">${escapeAttribute(text)}</span>`;
}

/** The image's width and height from its attributes or its style, in CSS. */
function boxSize(attribs: Record<string, string>): string {
  let width = pixels(attribs.width);
  let height = pixels(attribs.height);
  let block = false;
  if (attribs.style) {
    for (const d of parseDeclarations(attribs.style)) {
      if (d.property === 'width' && /^\d+(\.\d+)?(px|%)$/.test(d.value)) width = d.value;
      if (d.property === 'height' && /^\d+(\.\d+)?px$/.test(d.value)) height = d.value;
      if (d.property === 'display' && d.value === 'block') block = true;
    }
  }
  return `${width ? `width:${width};` : ''}${height ? `height:${height};` : ''}${block ? 'display:block;' : ''}`;
}

function pixels(value: string | undefined): string | null {
  const v = value?.trim() ?? '';
  return /^\d{1,5}$/.test(v) && v !== '0' ? `${v}px` : /^\d{1,3}%$/.test(v) ? v : null;
}

function fileName(src: string): string {
  const trimmed = src.trim();
  if (trimmed.startsWith('data:')) return 'an inline data: image';
  const path = trimmed.split(/[?#]/, 1)[0]!;
  const name = path.slice(path.lastIndexOf('/') + 1) || path;
  return name.length > 60 ? `${name.slice(0, 57)}…` : name;
}

/** Text for an attribute value or element content: the four characters that could end either, escaped. */
export function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
