import { describe, expect, it } from 'vitest';
import { parseViewParams, renderUrl } from '../../ui/src/state/view-url.ts';

describe('the view in the URL: the client view', () => {
  it('reads a known client view, drops an unknown one, and passes the client to the render URL', () => {
    expect(parseViewParams('tab=html&width=phone&mode=dark&client=outlook-windows')).toEqual({
      tab: 'html',
      width: 'phone',
      mode: 'styles',
      client: 'outlook-windows',
    });
    expect(parseViewParams('width=phone&client=lotus-notes')).toEqual({ width: 'phone' });
    expect(parseViewParams('client=%20images-off%20')).toEqual({ client: 'images-off' });
    expect(renderUrl('Ab1', 'tablet', 'invert', true, 'gmail-app')).toBe('/preview/Ab1?width=tablet&mode=inverted&client=gmail-app&remote=1');
    expect(renderUrl('Ab1', 'phone', 'light', false)).toBe('/preview/Ab1?width=phone&mode=light');
  });
});
