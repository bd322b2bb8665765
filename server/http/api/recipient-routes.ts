import type Router from '@koa/router';
import type { Sandbox } from '../../domain/sandbox.ts';
import { detail } from '../errors.ts';
import { paging, text } from './params.ts';
import { recipientItem } from './wire.ts';

/** Every team's recipients with their flags and whether they are blocked. */
export function mountRecipientRoutes(router: Router, sandbox: Sandbox): void {
  router.get('/api/recipients', async (ctx) => {
    const { offset, limit } = paging(ctx);
    const team = text(ctx, 'team');
    if (team !== undefined && !sandbox.directory.team(team)) throw detail(400, `Unknown team "${team}".`);
    const { total, items } = sandbox.recipients.search({ team, q: text(ctx, 'q') }, offset, limit);
    ctx.body = { total, offset, limit, recipients: items.map((r) => recipientItem(r, sandbox.blocks)) };
  });
}
