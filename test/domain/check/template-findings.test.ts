import { describe, expect } from 'vitest';
import { templateReport } from '../../../server/domain/check/template-findings.ts';
import { scanHtml } from '../../../server/domain/check/html-scan.ts';
import { read } from '../../support/app.ts';
import { test as it } from '../../support/fixtures.ts';
import { growth, LINEAR } from '../../support/scale.ts';
import { checkHtml } from './fixtures.ts';

const tags = (html: string, text: string | null = null) => templateReport(html, text, scanHtml(html), 'api').findings.filter((f) => f.rule === 'merge-tag');

describe('a full document inside the account template', () => {
  it('gets its own finding with the fix on a /v1 send with the template on (the default), none with it off', async ({ v1, app }) => {
    const page = '<!doctype html>\n<html><head><style>p { color: red }</style></head><body><p>Hi</p></body></html>';
    const send = async (extra: Record<string, unknown>) => {
      const res = await read(await v1.post('/v1/email/send/', { recipient: 'doc@example.com', subject: 'Doc', body: page, ...extra }));
      const check = await read(await fetch(`${app.url}/api/messages/${(res.body as { id: string }).id}/check`));
      return (check.body as { template: { findings: { rule: string; fix: string; message: string; line: number }[] } }).template.findings;
    };
    const wrapped = await send({});
    expect(wrapped).toEqual([
      {
        rule: 'nested-document',
        severity: 'error',
        part: 'html',
        // The sample account template puts the body on its line 7; the body's <html> is on its own second line.
        line: 8,
        message:
          'A whole HTML document is inside another: the body sent was a full document (<!doctype>, <html>, <head>, <body>) and the account template wrapped it, so the email has two <html> and two <body>. Clients drop or mangle the inner head (its <style> and meta tags) and may show stray markup.',
        fix: 'Send only the body (what goes inside <body>), or set use_account_template to false in the send.',
      },
    ]);
    expect(await send({ use_account_template: false })).toEqual([]);
  });
});

describe('unfilled merge tags', () => {
  it('flags {{first_name}} left in a /v1 send', async ({ v1, app }) => {
    const res = await read(
      await v1.post('/v1/email/send/', {
        recipient: 'tag@example.com',
        subject: 'Hi',
        body: '<p>Hello {{first_name}},</p>',
        plain_body: 'Hello {{first_name}},',
      }),
    );
    const check = (await read(await fetch(`${app.url}/api/messages/${(res.body as { id: string }).id}/check`))).body as any;
    const found = check.template.findings.filter((f: any) => f.rule === 'merge-tag');
    expect(found.map((f: any) => [f.part, f.message.slice(0, 48)])).toEqual([
      ['html', 'The merge tag {{first_name}} was left unfilled: '],
      ['text', 'The merge tag {{first_name}} was left unfilled: '],
    ]);
    expect(found[0].fix).toBe('Fill it in your application before sending (or send through a flow, which fills the tags it knows), or remove it.');
  });

  it('flags them in a draft of the Templates page (POST /api/check), wrapped in the template or not', async ({ app }) => {
    for (const extra of [{}, { sender: 'acme-main' }]) {
      const res = await read(
        await fetch(`${app.url}/api/check`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ html: '<p>Hi *|FNAME|*</p>', ...extra }),
        }),
      );
      expect(
        (res.body as any).template.findings.map((f: any) => f.rule),
        JSON.stringify(extra),
      ).toEqual(['merge-tag']);
    }
  });

  it('finds the three styles of tag, each once with its count and first line', () => {
    const html =
      '<p>Hi {{ first_name }} and {{first_name}}</p>\n<p>{{first_name}}</p>\n<p>*|FNAME|*</p>\n<a href="https://x.example/?u=%recipient.id%">x</a>\n<p>{{#if vip}}VIP{{/if}}</p>';
    expect(tags(html).map((f) => [f.message.split(' was')[0], f.line])).toEqual([
      ['The merge tag {{ first_name }}', 1],
      ['The merge tag {{first_name}}', 1],
      ['The merge tag *|FNAME|*', 3],
      ['The merge tag %recipient.id%', 4],
      ['The merge tag {{#if vip}}', 5],
      ['The merge tag {{/if}}', 5],
    ]);
    expect(tags(html)[1]!.message).toContain('(2 times)');
  });

  it('does not take percentages, URL escapes, CSS or braces for tags', () => {
    const html = [
      '<style>@keyframes f { 0% { opacity: 0 } 100% { opacity: 1 } } td { width: 50%; height: 100% }</style>',
      '<table width="100%"><tr><td width="50%">50% off, then 20% more: 100%!</td></tr></table>',
      '<a href="https://x.example/caf%C3%A9?q=%E2%80%99&amp;r=%20a%20">café</a>',
      '<p>Use {{ like a brace, or {a: {b: 1}} in code, or 100%%.</p>',
      '<p style="margin:0 auto;width:100%;max-width:600px">x</p>',
    ].join('\n');
    expect(tags(html)).toEqual([]);
    expect(checkHtml(html).template.findings).toEqual([]);
  });

  it('reads hostile text in linear time', { timeout: 120_000 }, async () => {
    // Tag starts never closed, percent signs a character apart, names too long to be tags.
    const unit = `{{a %a *|B {{ %${'x'.repeat(70)}% {{#`;
    const { ratio } = await growth(
      (n) => `<p>${unit.repeat(Math.ceil(n / unit.length))}</p>`,
      (html) => tags(html, html),
      20_000,
      3,
    );
    expect(ratio).toBeLessThan(LINEAR);
  });
});
