import { z } from 'zod';
import type { Sandbox } from '../../domain/sandbox.ts';
import { faultRuleSchema } from '../../domain/patterns/fault-rule.ts';
import { InvalidFaultRule } from '../../domain/toolkit/faults.ts';
import { NOT_FOUND } from '../../service-texts.ts';
import { detail, notFound } from '../errors.ts';
import { detail as detailDoc, json, noContent } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import { route, type ApiRoute } from './route.ts';

const tags = ['toolkit'];
const params = { id: 'Fault rule id.' };

/** Fault rules: what /v1 and SMTP answer when a rule fires, with their counters. */
export function faultRoutes(sandbox: Sandbox): ApiRoute[] {
  const { faults } = sandbox;
  const noRule = detailDoc('No such rule.', NOT_FOUND);
  return [
    route({
      method: 'GET',
      path: '/api/faults',
      doc: { summary: 'Fault rules', tags, responses: { 200: json('Every rule in force, with its counters.', z.object({ faults: z.array(S.FaultRule) })) } },
      handle(ctx) {
        ctx.body = { faults: faults.list() };
      },
    }),
    route({
      method: 'POST',
      path: '/api/faults',
      body: faultRuleSchema,
      // A rule's problems name where they are: "action.type: must be ...".
      issue: (issue) => `${issue.path.join('.') || 'rule'}: ${issue.message}`,
      doc: {
        summary: 'Add a fault rule',
        tags,
        bodyExample: { target: 'http', match: { route: '/v1/email/send/' }, action: { type: 'status', status: 503 }, times: 2 },
        responses: { 201: json('Added.', S.FaultRule), 400: detailDoc('Invalid rule.', 'action.type: must be status, delay, drop, smtp_reply or rate_limit') },
      },
      handle(ctx, { body }) {
        try {
          ctx.body = faults.add(body);
        } catch (error) {
          if (error instanceof InvalidFaultRule) throw detail(400, error.message);
          throw error;
        }
        ctx.status = 201;
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/faults',
      destructive: true,
      doc: { summary: 'Remove every fault rule', description: 'Configured rules too, until a reset restores them.', tags, responses: { 204: noContent() } },
      handle(ctx) {
        faults.reset({ restoreConfigured: false });
        ctx.status = 204;
      },
    }),
    route({
      method: 'GET',
      path: '/api/faults/:id',
      doc: { summary: 'One fault rule', tags, params, responses: { 200: json('The rule.', S.FaultRule), 404: noRule } },
      handle(ctx) {
        const rule = faults.get(ctx.params.id!);
        if (!rule) throw notFound();
        ctx.body = rule;
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/faults/:id',
      destructive: true,
      doc: { summary: 'Remove a fault rule', tags, params, responses: { 204: noContent(), 404: noRule } },
      handle(ctx) {
        if (!faults.remove(ctx.params.id!)) throw notFound();
        ctx.status = 204;
      },
    }),
  ];
}
