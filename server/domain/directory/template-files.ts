import { type FSWatcher, watch } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Store } from '../../storage/store.ts';
import { NotFound, TemplateRefused } from '../errors.ts';
import type { Events } from '../events.ts';
import type { Clock } from '../time/clock.ts';

/** Files listed at most (the rest are left out, and the list says so). */
const MAX_TEMPLATE_FILES = 1000;
/** The largest template file read, in bytes. */
const MAX_TEMPLATE_FILE_BYTES = 2 * 1024 * 1024;
/** The largest sample data kept for one file, as JSON. */
const MAX_SAMPLE_BYTES = 16 * 1024;
/** Files whose sample data is kept at most (the least recently saved go first): workbench.json stays small. */
const MAX_SAMPLES = 200;
/** Edits of one file closer together than this are announced once (editors write a file in several steps). */
const SETTLE_MS = 25;
/** `{{ name }}`, `{{user.first_name}}`: a variable the sample data fills (linear: no nested quantifier). */
const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]{0,99})\s*\}\}/g;

/** A template file as listed. */
export interface TemplateFileInfo {
  /** Its path in the folder, with `/` between folders. */
  name: string;
  size: number;
  modifiedAt: Date;
}

/** A file with its sample data filled in: what it renders as, and what the data did not fill. */
export interface FilledTemplate {
  html: string;
  variables: string[];
  missing: string[];
}

/**
 * The designers' template files (`--templates <dir>`, docs/inbox.md): the `.html` files of a
 * folder (the designer's repository, or the output of an MJML, Maizzle or React Email build),
 * listed and read on request, watched so that a save is announced (`template_file.changed`)
 * and the open page re-renders; each file's sample data (the values of its `{{name}}`
 * variables) is kept in the sandbox's data.
 */
export class TemplateFiles {
  private watcher: FSWatcher | null = null;
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(
    readonly dir: string,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly events: Events,
  ) {}

  /** Starts watching the folder (and the folders in it). */
  watch(): void {
    if (this.watcher) return;
    this.watcher = watch(this.dir, { recursive: true, persistent: false }, (_, filename) => {
      if (filename === null) return;
      const name = filename.split(path.sep).join('/');
      if (!name.toLowerCase().endsWith('.html')) return;
      clearTimeout(this.pending.get(name));
      this.pending.set(
        name,
        setTimeout(() => {
          this.pending.delete(name);
          void stat(path.join(this.dir, name)).then(
            () => this.events.emit('template_file.changed', { name, removed: false }),
            () => this.events.emit('template_file.changed', { name, removed: true }),
          );
        }, SETTLE_MS),
      );
    });
    // A folder removed under the server: nothing more to announce, and nothing to crash.
    this.watcher.on('error', () => this.close());
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  /** The folder's .html files, by name; at most MAX_TEMPLATE_FILES (`truncated` says when there were more). */
  async list(): Promise<{ files: TemplateFileInfo[]; truncated: boolean }> {
    const entries = await readdir(this.dir, { recursive: true, withFileTypes: true });
    const names = entries
      .filter((entry) => entry.isFile() && entry.name.toLowerCase().endsWith('.html'))
      .map((entry) =>
        path
          .relative(this.dir, path.join(entry.parentPath ?? entry.path, entry.name))
          .split(path.sep)
          .join('/'),
      )
      .sort();
    const files = await Promise.all(
      names.slice(0, MAX_TEMPLATE_FILES).map(async (name) => {
        const info = await stat(path.join(this.dir, name)).catch(() => null);
        return info ? { name, size: info.size, modifiedAt: info.mtime } : null;
      }),
    );
    return { files: files.filter((f): f is TemplateFileInfo => f !== null), truncated: names.length > MAX_TEMPLATE_FILES };
  }

  /** A file's text and when it changed; NotFound for a name outside the folder, not .html, or missing. */
  async read(name: string): Promise<{ html: string; modifiedAt: Date }> {
    const file = await this.resolve(name);
    const info = await stat(file);
    if (info.size > MAX_TEMPLATE_FILE_BYTES)
      throw new TemplateRefused(`${name} is ${info.size} bytes; a template file may have at most ${MAX_TEMPLATE_FILE_BYTES}.`);
    return { html: await readFile(file, 'utf8'), modifiedAt: info.mtime };
  }

  /** The sample data kept for a file ({} when none). */
  sample(name: string): Record<string, unknown> {
    return this.store.workbench.data.samples[name]?.data ?? {};
  }

  /** Keeps a file's sample data (validated: a JSON object of at most MAX_SAMPLE_BYTES); on disk when it resolves. */
  async saveSample(name: string, data: unknown): Promise<Record<string, unknown>> {
    await this.resolve(name);
    const problem = sampleProblem(data);
    if (problem) throw new TemplateRefused(problem);
    const { workbench } = this.store;
    const before = workbench.data;
    const samples = { ...before.samples, [name]: { data: data as Record<string, unknown>, savedAt: this.clock.now().toISOString() } };
    const oldestFirst = Object.keys(samples).sort((a, b) => samples[a]!.savedAt.localeCompare(samples[b]!.savedAt));
    for (const stale of oldestFirst.slice(0, Math.max(0, oldestFirst.length - MAX_SAMPLES))) if (stale !== name) delete samples[stale];
    await this.store.update(() => workbench.replace({ ...before, samples }), { undo: () => workbench.replace(before) });
    return data as Record<string, unknown>;
  }

  /** The file inside the folder that `name` names (a symbolic link may not lead out of it). */
  private async resolve(name: string): Promise<string> {
    const root = await realpath(this.dir);
    const wanted = path.resolve(root, name);
    if (!name.toLowerCase().endsWith('.html') || !wanted.startsWith(root + path.sep)) throw new NotFound();
    const real = await realpath(wanted).catch(() => null);
    if (real === null || !real.startsWith(root + path.sep)) throw new NotFound();
    return real;
  }
}

/** Fills each `{{name}}` (a dotted path into the data) with its value, HTML-escaped; the ones without a value stay as they are. */
export function fillTemplate(html: string, data: Record<string, unknown>): FilledTemplate {
  const variables = new Set<string>();
  const missing = new Set<string>();
  const filled = html.replace(VARIABLE, (whole, name: string) => {
    variables.add(name);
    const value = lookup(data, name);
    if (value === undefined || value === null || typeof value === 'object') {
      missing.add(name);
      return whole;
    }
    return escapeHtml(String(value));
  });
  return { html: filled, variables: [...variables], missing: [...missing] };
}

/** What is wrong with sample data, or null: a JSON object, at most MAX_SAMPLE_BYTES. */
function sampleProblem(data: unknown): string | null {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'data must be a JSON object of sample values, such as {"first_name": "Ada"}.';
  const bytes = Buffer.byteLength(JSON.stringify(data));
  if (bytes > MAX_SAMPLE_BYTES) return `data is ${bytes} bytes as JSON; sample data may have at most ${MAX_SAMPLE_BYTES}.`;
  return null;
}

function lookup(data: Record<string, unknown>, name: string): unknown {
  let value: unknown = data;
  for (const key of name.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
