import { z } from 'zod';
import type { TemplateFile, TemplateFileList } from '../../../client/pigeonhole-client.ts';
import { fillTemplate, type TemplateFiles } from '../../domain/directory/template-files.ts';
import { wrapInTemplate } from '../../domain/mail/template.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { wireTime } from '../../api-representations.ts';
import { detail } from '../errors.ts';
import { detail as detailDoc, json, notFound as notFoundDoc } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import { sender } from './input-fields.ts';
import { route, type ApiContext, type ApiRoute } from './route.ts';

const tags = ['templates'];
const params = { name: 'The file: its path in the --templates folder, URL-encoded (`emails%2Fwelcome.html`).' };
const NO_FOLDER = 'No template folder: start Pigeonhole with --templates <dir> (or PIGEONHOLE_TEMPLATES).';

/**
 * The --templates folder's files (docs/sandbox-api.md, "Template files"): the list, one file
 * filled with its sample data and wrapped in a sender's account template, and its sample data.
 * A save in the folder is announced on the live push (`template_file.changed`).
 */
export function templateFileRoutes(sandbox: Sandbox): ApiRoute[] {
  const folder = (): TemplateFiles => sandbox.templateFiles ?? raise(detail(404, NO_FOLDER));
  const nameOf = (ctx: ApiContext) => ctx.params.name!;
  return [
    route({
      method: 'GET',
      path: '/api/template-files',
      doc: {
        summary: 'The template files',
        description: "The --templates folder's .html files (and those of the folders in it), by name; `dir` null when Pigeonhole runs without one.",
        tags,
        responses: { 200: json('The files.', S.TemplateFileList) },
      },
      async handle(ctx) {
        const files = sandbox.templateFiles;
        if (!files) {
          ctx.body = { dir: null, files: [], truncated: false } satisfies TemplateFileList;
          return;
        }
        const listed = await files.list();
        ctx.body = {
          dir: files.dir,
          files: listed.files.map((f) => ({
            name: f.name,
            size: f.size,
            modified_at: wireTime(f.modifiedAt),
            has_sample: Object.keys(files.sample(f.name)).length > 0,
          })),
          truncated: listed.truncated,
        } satisfies TemplateFileList;
      },
    }),
    route({
      method: 'GET',
      path: '/api/template-files/:name',
      query: z.object({ sender: sender(sandbox).describe('Sender id (or API key): wrap in its account template in use; absent: not wrapped.') }),
      doc: {
        summary: 'A template file, rendered',
        description:
          "The file as on disk, and `rendered`: its `{{variables}}` filled from its sample data (HTML-escaped; a variable without a value stays as it is and is listed in `missing`), wrapped in the sender's account template as a send would be. Read afresh at each request: fetch it again on `template_file.changed`.",
        tags,
        params,
        responses: {
          200: json('The file.', S.TemplateFile),
          400: detailDoc('An unknown sender, or a file over 2 MB.', 'sender "nobody" is neither a sender id nor an API key.'),
          404: detailDoc('No such .html file in the folder, or no folder.', NO_FOLDER),
        },
      },
      async handle(ctx, { query }) {
        const files = folder();
        const name = nameOf(ctx);
        const { html, modifiedAt } = await files.read(name);
        const sample = files.sample(name);
        const filled = fillTemplate(html, sample);
        const template = query.sender === undefined ? null : sandbox.templates.live(query.sender);
        ctx.body = {
          name,
          sender: query.sender ?? null,
          template_version: template?.version ?? null,
          html,
          rendered: wrapInTemplate(template?.html ?? null, filled.html),
          variables: filled.variables,
          missing: filled.missing,
          sample,
          modified_at: wireTime(modifiedAt),
        } satisfies TemplateFile;
      },
    }),
    route({
      method: 'PUT',
      path: '/api/template-files/:name/sample',
      body: z.object({ data: z.unknown().describe("A JSON object: the values of the file's {{variables}} (dotted names reach into objects).") }),
      doc: {
        summary: "Keep a template file's sample data",
        description:
          "Kept in the sandbox's data (across restarts and resets), at most 16 KB as JSON per file (and for at most 200 files, the least recently saved forgotten first); used by every render of the file from now on.",
        tags,
        params,
        bodyExample: { data: { first_name: 'Ada', order: { total: '€42.00' } } },
        responses: {
          200: json('The sample data kept.', z.object({ name: z.string(), sample: z.record(z.string(), z.unknown()) })),
          400: detailDoc('Not a JSON object, or too large.', 'data must be a JSON object of sample values, such as {"first_name": "Ada"}.'),
          404: notFoundDoc(),
        },
      },
      async handle(ctx, { body }) {
        const name = nameOf(ctx);
        ctx.body = { name, sample: await folder().saveSample(name, body.data) };
      },
    }),
  ];
}

function raise(error: Error): never {
  throw error;
}
