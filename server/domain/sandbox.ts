import type { SandboxConfig } from './directory/sandbox-config.ts';
import type { Store } from '../storage/store.ts';
import { Blocks } from './toolkit/blocks.ts';
import type { SandboxClock } from './time/clock.ts';
import { ClockControl } from './time/clock-control.ts';
import { AccountTemplates } from './directory/account-templates.ts';
import { Directory } from './directory/directory.ts';
import { TemplateFiles } from './directory/template-files.ts';
import { StorageError } from './errors.ts';
import { parseDuration } from './time/duration.ts';
import { Events } from './events.ts';
import { Faults } from './toolkit/faults.ts';
import type { RawParser } from './messages/incoming.ts';
import { Messages } from './messages/messages.ts';
import { Releases, type RelayTransport } from './messages/release.ts';
import { Recipients } from './directory/recipients.ts';
import { RequestLog } from './toolkit/request-log.ts';
import { everything, Reset, standardParts } from './reset.ts';
import { FlowEngine } from './flows/flow-engine.ts';
import { Scheduler } from './time/scheduler.ts';
import { Subscriptions } from './flows/subscriptions.ts';

export interface DomainDeps {
  store: Store;
  config: SandboxConfig;
  clock: SandboxClock;
  /** Where the domain reports failures of work nobody waits for (scheduled steps). */
  log?: (message: string, error?: unknown) => void;
  /** Takes an SMTP message apart (the SMTP layer's mailparser): its bodies and attachments. */
  parseRaw?: RawParser;
  /** The --templates folder, watched while the sandbox runs; null or absent: none. */
  templatesDir?: string | null;
  /** The relay releases go through (--relay) and the addresses they may go to (--relay-allow); null or absent: none. */
  relay?: { transport: RelayTransport; allow: readonly string[] } | null;
  /** Where what was done on request is logged (each release); default console.log. */
  note?: (line: string) => void;
}

/** The domain: rules, ingestion and state, with no knowledge of HTTP, SMTP or WebSocket. */
export interface Sandbox {
  readonly clock: SandboxClock;
  /** Moves the sandbox clock (advance, set, reset) and runs what falls due. */
  readonly time: ClockControl;
  /** Everything due at an instant of the sandbox clock (flow steps, delivery outcomes). */
  readonly scheduler: Scheduler;
  readonly events: Events;
  readonly directory: Directory;
  /** Each sender's account template: the configured one and the versions saved since (kept by a reset). */
  readonly templates: AccountTemplates;
  /** The --templates folder's files and their sample data; null when Pigeonhole runs without one. */
  readonly templateFiles: TemplateFiles | null;
  readonly blocks: Blocks;
  readonly recipients: Recipients;
  readonly messages: Messages;
  /** Release to a real inbox through the configured relay, on request only. */
  readonly releases: Releases;
  readonly subscriptions: Subscriptions;
  readonly faults: Faults;
  readonly requestLog: RequestLog;
  readonly reset: Reset;
  readonly flows: FlowEngine;
  /**
   * Removes recipients nothing has touched since the oldest capture kept, except those in a
   * flow now (retention: the recipients pruned captures leave behind); returns how many.
   */
  pruneRecipients(): Promise<number>;
  close(): Promise<void>;
}

export function createSandbox({
  store,
  config,
  clock,
  log: given = (m, e) => console.error(m, e ?? ''),
  parseRaw,
  templatesDir,
  relay = null,
  note = (line) => console.log(line),
}: DomainDeps): Sandbox {
  // Background work refused by a store that cannot write (read-only, full) is not logged job by
  // job: the store logs the cause once (docs/storage.md).
  const log = (message: string, error?: unknown) => {
    if (!(error instanceof StorageError)) given(message, error);
  };
  const events = new Events();
  // Every waiting request (GET /api/messages/wait) listens for captures while it waits.
  events.setMaxListeners(0);
  const scheduler = new Scheduler(clock, log);
  // First, so everything below reads the sandbox's stored time.
  const time = new ClockControl(clock, scheduler, store, events);
  const directory = new Directory(config);
  const blocks = new Blocks(store, directory, clock);
  const recipients = new Recipients(store, clock, scheduler, (record) => events.emit('recipient.changed', record));
  const templates = new AccountTemplates(store, directory, clock, events);
  const templateFiles = templatesDir ? new TemplateFiles(templatesDir, store, clock, events) : null;
  templateFiles?.watch();
  const messages = new Messages(store, clock, recipients, blocks, events, parseDuration(config.delivery.delay) ?? 0, scheduler, {
    parseRaw,
    liveTemplate: (sender) => templates.live(sender),
  });
  const releases = new Releases(messages, relay, note);
  const flows = new FlowEngine({ store, clock, directory, recipients, messages, blocks, scheduler, events, log });
  events.on('recipient.changed', (record) => flows.recipientChanged(record));
  const subscriptions = new Subscriptions(store, clock, directory, recipients, events, flows);
  const faults = new Faults(directory, config.faults, clock);
  const requestLog = new RequestLog(store);
  const reset = new Reset(standardParts({ store, messages, recipients, subscriptions, blocks, requestLog, faults }), directory, store, events);
  // A whole reset also returns the sandbox clock to real time; a team's or a namespace's reset leaves the shared clock.
  reset.register({
    name: 'clock',
    reset: async (scope) => {
      if (!everything(scope) || time.read().realTime) return 0;
      await time.reset();
      return 1;
    },
  });
  return {
    clock,
    time,
    scheduler,
    events,
    directory,
    templates,
    templateFiles,
    blocks,
    recipients,
    messages,
    releases,
    subscriptions,
    flows,
    faults,
    requestLog,
    reset,
    async pruneRecipients() {
      const oldest = messages.oldestCreatedAt();
      if (oldest === null) return 0;
      return recipients.prune(oldest.toISOString(), subscriptions.inFlow());
    },
    async close() {
      templateFiles?.close();
      releases.close();
      await scheduler.close();
      // What is still queued is written by the store's close, which reports what stayed unsaved.
      await messages.close();
    },
  };
}
