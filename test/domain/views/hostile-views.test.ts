import { describe, expect, it } from 'vitest';
import { HOSTILE_SHAPES } from '../../../bench/lib/hostile-shapes.ts';
import { CLIENT_VIEWS, renderClientView } from '../../../server/domain/views/render.ts';
import { GROWTH, growth, LINEAR } from '../../support/scale.ts';

/**
 * Hostile HTML through the client views (issue 19's shapes, bench/lib/hostile-shapes.ts): every
 * view, whose transforms read the HTML with the project's parser and CSS reader, costs linear
 * time: 8× the HTML costs less than 20× the time (test/support/scale.ts). Gmail's views clip at
 * 102 KB, so the others carry the growth; all seven run on each input.
 */

const KB = 1024;
const everyView = (html: string) => {
  for (const client of CLIENT_VIEWS) renderClientView(html, client, 'dark');
};

describe('client views of hostile HTML', () => {
  for (const shape of HOSTILE_SHAPES.filter((s) => s.part === 'html')) {
    it(`${shape.name}: ${GROWTH}× the HTML costs < ${LINEAR}× the time`, async () => {
      const { ratio } = await growth(shape.make, everyView, 16 * KB, 3);
      expect(ratio).toBeLessThan(LINEAR);
    });
  }
});
