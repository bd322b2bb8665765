import type { Store } from '../../storage/store.ts';
import type { TemplateVersionRecord, WorkbenchData } from '../entities.ts';
import { TemplateRefused } from '../errors.ts';
import type { Events } from '../events.ts';
import type { Clock } from '../time/clock.ts';
import type { Directory } from './directory.ts';

/** Saved versions kept per sender (the oldest dropped first; the one in use is never dropped). */
const MAX_TEMPLATE_VERSIONS = 20;
/** The largest account template accepted, in UTF-8 bytes. */
const MAX_TEMPLATE_BYTES = 128 * 1024;
/** Where the body goes in an account template (docs/api-contract.md §3, step 2). */
const CONTENT = '{{content}}';

/** The account template a send is wrapped in: its HTML and its version (0: the configured one). */
export interface LiveTemplate {
  html: string;
  version: number;
}

/** One version as the sandbox API lists it: 0 is the configuration file's (html null when it has none). */
export interface TemplateVersion {
  version: number;
  html: string | null;
  savedAt: string | null;
  current: boolean;
}

/**
 * Each sender's account template, editable while the sandbox runs (docs/sandbox-api.md,
 * "Account templates"): the configuration file's is version 0 and stays the default; a save stores a new
 * version in the sandbox's data (workbench.json) and makes it the one the next send is wrapped
 * in; a revert makes an earlier version (or the configured one) current again. A reset keeps
 * them: they are a designer's work, not a test's state.
 */
export class AccountTemplates {
  constructor(
    private readonly store: Store,
    private readonly directory: Directory,
    private readonly clock: Clock,
    private readonly events: Events,
  ) {}

  /** The template a send of this sender is wrapped in now, or null when it has none. */
  live(senderId: string): LiveTemplate | null {
    const state = this.store.workbench.data.templates[senderId];
    const saved = state && state.current > 0 ? state.versions.find((v) => v.version === state.current) : undefined;
    if (saved) return { html: saved.html, version: saved.version };
    const configured = this.directory.sender(senderId)?.sender.accountTemplate ?? null;
    return configured === null ? null : { html: configured, version: 0 };
  }

  /** Every version, the configured one (0) first, then the saved ones oldest first. */
  versions(senderId: string): TemplateVersion[] {
    const state = this.store.workbench.data.templates[senderId];
    const current = this.live(senderId)?.version ?? 0;
    const configured = this.directory.sender(senderId)?.sender.accountTemplate ?? null;
    return [
      { version: 0, html: configured, savedAt: null, current: current === 0 },
      ...(state?.versions ?? []).map((v) => ({ version: v.version, html: v.html, savedAt: v.savedAt, current: current === v.version })),
    ];
  }

  /** Saves a new version and makes it current; on disk when it resolves. */
  async save(senderId: string, html: string): Promise<TemplateVersion> {
    const problem = templateProblem(html);
    if (problem) throw new TemplateRefused(problem);
    const before = this.store.workbench.data;
    const state = before.templates[senderId] ?? { current: 0, next: 1, versions: [] };
    const saved: TemplateVersionRecord = { version: state.next, html, savedAt: this.clock.now().toISOString() };
    let versions = [...state.versions, saved];
    // Bounded: the oldest saved versions go first, never the one that was in use.
    while (versions.length > MAX_TEMPLATE_VERSIONS) {
      const drop = versions.findIndex((v) => v.version !== state.current && v.version !== saved.version);
      versions = versions.filter((_, index) => index !== drop);
    }
    await this.write(before, senderId, { current: saved.version, next: saved.version + 1, versions });
    return { version: saved.version, html, savedAt: saved.savedAt, current: true };
  }

  /** Makes a version current again (0: the configured one); on disk when it resolves. */
  async revert(senderId: string, version: number): Promise<TemplateVersion> {
    const listed = this.versions(senderId).find((v) => v.version === version);
    if (!listed) {
      const known = this.versions(senderId).map((v) => v.version);
      throw new TemplateRefused(`Version ${version} of ${senderId}'s template does not exist (versions: ${known.join(', ')}).`);
    }
    const before = this.store.workbench.data;
    const state = before.templates[senderId] ?? { current: 0, next: 1, versions: [] };
    await this.write(before, senderId, { ...state, current: version });
    return { ...listed, current: true };
  }

  private async write(before: Readonly<WorkbenchData>, senderId: string, state: WorkbenchData['templates'][string]): Promise<void> {
    const { workbench } = this.store;
    await this.store.update(() => workbench.replace({ ...before, templates: { ...before.templates, [senderId]: state } }), {
      undo: () => workbench.replace(before),
    });
    this.events.emit('template.changed', { sender: senderId, version: state.current });
  }
}

/** What is wrong with an account template, or null: it must hold `{{content}}` and fit the limit. */
export function templateProblem(html: string): string | null {
  if (!html.includes(CONTENT)) return `html must contain ${CONTENT} where the body goes.`;
  const bytes = Buffer.byteLength(html);
  if (bytes > MAX_TEMPLATE_BYTES) return `html is ${bytes} bytes; an account template may have at most ${MAX_TEMPLATE_BYTES}.`;
  return null;
}
