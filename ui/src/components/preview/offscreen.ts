/**
 * An email rendered off screen where the inbox can read it: to measure its height (the phone and
 * tablet previews show the whole email, not a scroll box) and to take a picture of it (PNG, the
 * difference view). The frame is sandboxed with `allow-same-origin` only: the inbox may read its
 * document, but nothing in it runs (no `allow-scripts`, and the document carries the preview's
 * CSP with `script-src 'none'`). The picture is the DOM drawn into an SVG image by
 * modern-screenshot, loaded on first use: an SVG image runs no script either.
 */

/** The email at `width` px, loaded; `dispose` removes the frame. */
async function openOffscreen(doc: string, width: number): Promise<{ frame: HTMLIFrameElement; dispose: () => void }> {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-same-origin');
  frame.setAttribute('aria-hidden', 'true');
  frame.tabIndex = -1;
  frame.style.cssText = `position:fixed;left:-20000px;top:0;width:${width}px;height:50px;border:0;visibility:hidden;pointer-events:none`;
  const loaded = new Promise<void>((resolve) => frame.addEventListener('load', () => resolve(), { once: true }));
  frame.srcdoc = doc;
  document.body.append(frame);
  await loaded;
  return { frame, dispose: () => frame.remove() };
}

function contentHeight(frame: HTMLIFrameElement): number {
  const document = frame.contentDocument!;
  return Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0);
}

/** The height in px the email takes at `width` px. */
export async function measureHeight(doc: string, width: number): Promise<number> {
  const { frame, dispose } = await openOffscreen(doc, width);
  try {
    return contentHeight(frame);
  } finally {
    dispose();
  }
}

/** The email at `width` px as a canvas of its whole height (one CSS px per pixel). */
export async function renderToCanvas(doc: string, width: number): Promise<HTMLCanvasElement> {
  const [{ domToCanvas }, { frame, dispose }] = await Promise.all([import('modern-screenshot'), openOffscreen(doc, width)]);
  try {
    const height = contentHeight(frame);
    frame.style.height = `${height}px`;
    const root = frame.contentDocument!.documentElement;
    const background = frame.contentWindow!.getComputedStyle(frame.contentDocument!.body ?? root).backgroundColor;
    const drawn = await domToCanvas(root, {
      width,
      height,
      scale: 1,
      backgroundColor: background && background !== 'rgba(0, 0, 0, 0)' ? background : '#ffffff',
    });
    // modern-screenshot makes its canvas in the email's document, which goes with the frame: copy it out first.
    const canvas = document.createElement('canvas');
    canvas.width = drawn.width;
    canvas.height = drawn.height;
    canvas.getContext('2d')!.drawImage(drawn, 0, 0);
    return canvas;
  } finally {
    dispose();
  }
}

/** Saves a canvas as `name`.png through a download link. */
export async function downloadPng(canvas: HTMLCanvasElement, name: string): Promise<void> {
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
  if (!blob) throw new Error('the browser could not encode the PNG');
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = `${name}.png`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
