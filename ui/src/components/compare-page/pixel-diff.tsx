import { useEffect, useState } from 'preact/hooks';
import { renderToCanvas } from '../preview/offscreen.ts';
import styles from './compare-page.module.css';

type Shown = 'diff' | 'before' | 'after';

interface Result {
  before: string;
  after: string;
  diff: string;
  width: number;
  height: number;
  differing: number;
}

/** `canvas` on a white page of `width` × `height` (the shorter email is padded below). */
function pixels(canvas: HTMLCanvasElement, width: number, height: number): ImageData {
  const padded = document.createElement('canvas');
  padded.width = width;
  padded.height = height;
  const context = padded.getContext('2d')!;
  context.fillStyle = '#fff';
  context.fillRect(0, 0, width, height);
  context.drawImage(canvas, 0, 0);
  return context.getImageData(0, 0, width, height);
}

/** Both emails drawn at one width and compared pixel by pixel (pixelmatch, loaded on first use). */
async function compare(a: string, b: string, px: number): Promise<Result> {
  const [before, after, { default: pixelmatch }] = await Promise.all([renderToCanvas(a, px), renderToCanvas(b, px), import('pixelmatch')]);
  const width = Math.max(before.width, after.width);
  const height = Math.max(before.height, after.height);
  const out = document.createElement('canvas');
  out.width = width;
  out.height = height;
  const context = out.getContext('2d')!;
  const diff = context.createImageData(width, height);
  // Red where a pixel changed, green where the "after" is darker: what moved shows as a pair.
  const differing = pixelmatch(pixels(before, width, height).data, pixels(after, width, height).data, diff.data, width, height, {
    threshold: 0.1,
    alpha: 0.2,
    diffColor: [230, 30, 30],
    diffColorAlt: [20, 160, 60],
  });
  context.putImageData(diff, 0, 0);
  return { before: before.toDataURL(), after: after.toDataURL(), diff: out.toDataURL(), width, height, differing };
}

/** The difference view: what changed between the two, highlighted, with a flip to each version. */
export function PixelDiff({ a, b, px }: { a: string | null; b: string | null; px: number }) {
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<Shown>('diff');
  useEffect(() => {
    if (a === null || b === null) return;
    let current = true;
    setResult(null);
    setError(null);
    compare(a, b, px).then(
      (r) => current && setResult(r),
      (e: Error) => current && setError(e.message),
    );
    return () => {
      current = false;
    };
  }, [a, b, px]);
  if (error) return <p class="banner error">Could not compare the two: {error}</p>;
  if (!result)
    return (
      <p class="muted pad" role="status">
        Drawing both emails at {px} px…
      </p>
    );
  const total = result.width * result.height;
  return (
    <div class={styles.diffView}>
      <div class="part-toolbar">
        <p class={styles.diffStat} role="status" data-testid="diff-stat">
          {result.differing === 0
            ? 'No pixel differs.'
            : `${result.differing.toLocaleString()} of ${total.toLocaleString()} pixels differ (${((100 * result.differing) / total).toFixed(2)} %)`}
        </p>
        <div class="segmented" role="group" aria-label="Show">
          {(['diff', 'before', 'after'] as const).map((s) => (
            <button type="button" key={s} aria-pressed={shown === s} onClick={() => setShown(s)}>
              {s === 'diff' ? 'Difference' : s === 'before' ? 'Before' : 'After'}
            </button>
          ))}
        </div>
        <a class="button ghost small" href={result[shown]} download={`compare-${shown}.png`}>
          PNG
        </a>
      </div>
      <div class={styles.diffStage}>
        <img
          src={result[shown]}
          width={result.width}
          height={result.height}
          alt={
            shown === 'diff'
              ? 'The difference: changed pixels in red and green over the earlier email, faded'
              : `The ${shown === 'before' ? 'earlier' : 'later'} email`
          }
          data-testid="diff-image"
        />
      </div>
    </div>
  );
}
