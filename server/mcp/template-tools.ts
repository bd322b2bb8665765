import { z } from 'zod';
import type { PigeonholeClient } from '../../client/pigeonhole-client.ts';
import { CHANGES, type DefineTool, DESTROYS, READS, READS_MAIL } from './define-tool.ts';

/** Characters of each re-wrapped capture's HTML an answer carries unless the call asks for more (20 of them fit in 400,000). */
const REWRAP_HTML_LIMIT = 20_000;

const sender = z.string().min(1).describe('The sender id (see list_senders), e.g. "acme-main".');

/**
 * The tools of the account templates (docs/sandbox-api.md, "Account templates"): the version in
 * use, the versions, a save, a revert, and captures re-wrapped in a draft. Releasing a capture to
 * a real inbox has no tool on purpose: a human does that.
 */
export function registerTemplateTools(tool: DefineTool, client: PigeonholeClient): void {
  tool(
    'get_template',
    "A sender's account template in use: its version (0: the configuration file's) and html (null when the sender has none); the next send with use_account_template is wrapped in it.",
    { sender },
    async (args) => client.template(args.sender),
    READS,
  );
  tool(
    'template_versions',
    "Every version of a sender's account template: version 0 (the configuration file's) first, then the saved ones, oldest first; current names the one in use.",
    { sender },
    async (args) => client.templateVersions(args.sender),
    READS,
  );
  tool(
    'save_template',
    "Save a new version of a sender's account template and use it from the next send on (no restart); html must contain {{content}} where the body goes. At most 20 saved versions per sender are kept: a save beyond that drops the oldest saved one. Returns the new version.",
    { sender, html: z.string().describe('The template: HTML with {{content}} where the body goes.') },
    async (args) => client.saveTemplate(args.sender, args.html),
    { ...DESTROYS, idempotent: false },
  );
  tool(
    'revert_template',
    "Use an earlier version of a sender's account template again: a saved version, or version 0 (absent: the configuration file's). No version is deleted. Returns the version now in use.",
    { sender, version: z.number().int().min(0).optional().describe("The version to use; absent or 0: the configuration file's.") },
    async (args) => client.revertTemplate(args.sender, args.version),
    { ...CHANGES, idempotent: true },
  );
  tool(
    'rewrap_captures',
    'See a draft account template on real mail before saving it: captured emails of the sender (ids, or its newest 20) with their body as sent wrapped in the draft html (absent: the version in use) exactly as a send would be. A capture from before Pigeonhole kept the body as sent says unwrapped_body not_kept and has html null. Each html is cut to max_html_chars (html_length: its full length). Nothing is stored.',
    {
      sender,
      html: z.string().optional().describe('The draft template, with {{content}}; absent: the version in use.'),
      ids: z.array(z.string().min(1)).max(50).optional().describe("Capture ids, in the order to show them; absent: the sender's newest 20."),
      max_html_chars: z
        .number()
        .int()
        .min(0)
        .max(50_000_000)
        .default(REWRAP_HTML_LIMIT)
        .describe('Longest HTML returned per capture; longer HTML is cut and html_truncated is true.'),
    },
    async ({ sender: id, html, ids, max_html_chars }, signal) => {
      const rewrapped = await client.rewrap(id, { html, ids }, { signal });
      return {
        sender: rewrapped.sender,
        captures: rewrapped.captures.map((c) => ({
          ...c,
          html: c.html === null ? null : c.html.slice(0, max_html_chars),
          html_length: c.html?.length ?? 0,
          ...(c.html !== null && c.html.length > max_html_chars ? { html_truncated: true } : {}),
        })),
      };
    },
    READS_MAIL,
  );
}
