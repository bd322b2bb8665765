import { z } from 'zod';
import { type Capture, ExpectationFailed, type MessageFilter, type PigeonholeClient, PigeonholeError } from '../../client/pigeonhole-client.ts';
import { refusedOf } from '../http/api/refusals.ts';
import * as S from '../http/openapi/schemas.ts';
import { type DefineTool, READS_MAIL } from './define-tool.ts';
import { captureResult, detailResult, HTML_LIMIT, summary, TEXT_LIMIT } from './message-views.ts';
import { renderTool } from './render-tool.ts';

/** The tools that read captured mail: list, read, wait, expect, extract, check. */

const WAIT_MAX_MS = 120_000;

const filterShape = {
  recipient: z.string().optional().describe('Any address on the capture (original recipient, To, Cc or Bcc), any case.'),
  subject: z.string().optional().describe('Case-insensitive substring of the subject.'),
  q: z.string().optional().describe("Words that must all appear in the subject, an address, the sender or the body's text (its first 1,000 characters)."),
  sender: z.string().optional().describe('Sender id or API key.'),
  team: z.string().optional().describe('Team id.'),
  source: S.Source.optional().describe('How it arrived.'),
  status: S.DeliveryStatus.optional().describe('Delivery status.'),
  since: z.string().optional().describe('ISO-8601 time: only captures created at or after it.'),
  after: z.string().optional().describe('A capture id: only captures newer than it (to wait for new mail only).'),
  namespace: z.string().optional().describe('Only captures of this namespace: the +tag of an address (ada+t7f3k@example.com is in t7f3k).'),
};

const bodyOptions = {
  include_html: z.boolean().default(false).describe('Also return the HTML body (cut to max_html_chars).'),
  max_text_chars: z.number().int().min(0).max(5_000_000).default(TEXT_LIMIT).describe('Longest text returned; longer text is cut and text_truncated is true.'),
  max_html_chars: z.number().int().min(0).max(50_000_000).default(HTML_LIMIT).describe('Longest HTML returned when include_html is true.'),
};

export const page = (max: number, fallback: number) => ({
  limit: z.number().int().min(1).max(max).default(fallback).describe(`How many (1–${max}).`),
  offset: z.number().int().min(0).default(0).describe('How many to skip.'),
});

export function registerMessageTools(tool: DefineTool, client: PigeonholeClient): void {
  tool(
    'list_messages',
    'List or search captured emails, newest first, each with its links and one-time codes; every filter is optional.',
    { ...filterShape, ...page(100, 20) },
    async (args) => client.search(args),
    READS_MAIL,
  );
  tool(
    'get_message',
    'Read one captured email: summary, text (the plain part, or the HTML rendered as text when text_derived), links, codes, headers and attachments; the HTML only with include_html.',
    { id: z.string().min(1).describe('The capture id.'), include_headers: z.boolean().default(true).describe('Include the headers.'), ...bodyOptions },
    async ({ id, include_headers, ...body }) => detailResult(await client.get(id), include_headers, body),
    READS_MAIL,
    { view: (m: { id: string }) => [m.id] },
  );
  tool(
    'wait_for_message',
    'Wait until an email matching the filter is captured (one already stored answers at once; pass after=<id> for new mail only) and return it with text, links and codes; an error after timeout_ms.',
    { ...filterShape, timeout_ms: z.number().int().min(0).max(WAIT_MAX_MS).default(10_000).describe(`How long to wait, 0–${WAIT_MAX_MS} ms.`), ...bodyOptions },
    async ({ timeout_ms, include_html, max_text_chars, max_html_chars, ...filter }, signal) =>
      captureResult(await client.waitForMessage({ ...(filter as MessageFilter), timeout: timeout_ms, signal }), {
        include_html,
        max_text_chars,
        max_html_chars,
      }),
    READS_MAIL,
    { view: (m: { id: string }) => [m.id], task: true },
  );
  tool(
    'expect_messages',
    'Assert that exactly count emails match the filter (count 0: none), counting those stored and those captured within within_ms; scope it with namespace (the +tag of the addresses the test used) or after. Returns {count, messages} once exactly count matched and no further one arrived within settle_ms; an error with the count and the matches as soon as more match, or when fewer did by the end.',
    {
      ...filterShape,
      count: z.number().int().min(0).max(1000).describe('How many must match; 0: none may.'),
      within_ms: z
        .number()
        .int()
        .min(0)
        .max(WAIT_MAX_MS)
        .optional()
        .describe(`How long to wait for them, 0–${WAIT_MAX_MS} ms; default 10000, or 1000 when count is 0.`),
      settle_ms: z.number().int().min(0).max(10_000).default(250).describe('Once exactly count match, how long no further one may arrive (at most within_ms).'),
    },
    async ({ within_ms, settle_ms, ...filter }, signal) => {
      const listed = (messages: Capture[]) => messages.map((m) => ({ ...summary(m), links: m.links, codes: m.codes }));
      try {
        const found = await client.expect({ ...(filter as MessageFilter & { count: number }), within: within_ms, settle: settle_ms, signal });
        return { count: found.count, messages: listed(found.messages) };
      } catch (error) {
        // The failure as the API gave it, with the matches cut to what an agent needs.
        if (error instanceof ExpectationFailed)
          throw new PigeonholeError(error.status, { detail: error.detail, count: error.count, messages: listed(error.messages), ...refusedOf(error) });
        throw error;
      }
    },
    READS_MAIL,
    { view: (found: { messages: { id: string }[] }) => found.messages.map((m) => m.id), task: true },
  );

  tool(
    'extract_links_and_codes',
    'The links (href and visible text, in reading order) and one-time codes found in a captured email.',
    { id: z.string().min(1).describe('The capture id.') },
    async ({ id }) => client.extract(id),
    READS_MAIL,
  );
  tool(
    'check_message',
    'Check a captured email as a designer would: client compatibility scores and warnings, size (Gmail clipping), accessibility, dark mode, headers and spam (docs/checks.md). platforms narrows the clients.',
    {
      id: z.string().min(1).describe('The capture id.'),
      platforms: z.array(S.CheckPlatform).optional().describe('Only clients of these platforms (default: all).'),
    },
    async ({ id, platforms }) => client.check(id, { platforms }),
    READS_MAIL,
    { task: true },
  );
  tool(renderTool.name, renderTool.description, renderTool.input, (args, signal) => renderTool.run(client, args, signal), READS_MAIL);
}
