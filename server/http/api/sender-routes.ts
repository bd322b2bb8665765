import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Sandbox } from '../../domain/sandbox.ts';
import { wrapInTemplate } from '../../domain/mail/template.ts';
import { detail } from '../errors.ts';
import { stringField } from './params.ts';
import { senderItem } from './wire.ts';

/** The configured senders, and the designers' template preview. */
export function mountSenderRoutes(router: Router, sandbox: Sandbox, parseBody: Middleware): void {
  const { directory } = sandbox;

  router.get('/api/senders', async (ctx) => {
    const senders = directory.config.teams.flatMap((team) => team.senders.map((sender) => senderItem({ team, sender })));
    ctx.body = { senders };
  });

  // The body wrapped exactly as a send through /v1 with use_account_template=true would be.
  router.post('/api/preview', parseBody, async (ctx) => {
    const data = ctx.state.body!.data;
    const id = stringField(data, 'sender');
    const html = stringField(data, 'html');
    const caller = directory.sender(id);
    if (!caller) throw detail(400, `Unknown sender "${id}".`);
    ctx.body = { html: wrapInTemplate(caller.sender.accountTemplate, html) };
  });
}
