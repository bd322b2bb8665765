import type { SandboxConfig } from '../sandbox-config.ts';
import type { Store } from '../storage/store.ts';
import { Blocks } from './blocks.ts';
import type { Clock } from './clock.ts';
import { Directory } from './directory.ts';
import { parseDuration } from './duration.ts';
import { Events } from './events.ts';
import { Faults } from './faults.ts';
import { Messages } from './messages.ts';
import { Recipients } from './recipients.ts';
import { RequestLog } from './request-log.ts';
import { Reset, standardParts } from './reset.ts';
import { Subscriptions } from './subscriptions.ts';

export interface DomainDeps {
  store: Store;
  config: SandboxConfig;
  clock: Clock;
}

/** The domain: rules, ingestion and state, with no knowledge of HTTP, SMTP or WebSocket. */
export interface Sandbox {
  readonly clock: Clock;
  readonly events: Events;
  readonly directory: Directory;
  readonly blocks: Blocks;
  readonly recipients: Recipients;
  readonly messages: Messages;
  readonly subscriptions: Subscriptions;
  readonly faults: Faults;
  readonly requestLog: RequestLog;
  readonly reset: Reset;
  close(): Promise<void>;
}

export function createSandbox({ store, config, clock }: DomainDeps): Sandbox {
  const events = new Events();
  // Every waiting request (GET /api/messages/wait) listens for captures while it waits.
  events.setMaxListeners(0);
  const directory = new Directory(config);
  const blocks = new Blocks(store, directory, clock);
  const recipients = new Recipients(store, clock, (record) => events.emit('recipient.changed', record));
  const messages = new Messages(store, clock, recipients, blocks, events, parseDuration(config.delivery.delay) ?? 0);
  const subscriptions = new Subscriptions(store, clock, directory, recipients, events);
  const faults = new Faults(directory, config.faults);
  const requestLog = new RequestLog(store);
  const reset = new Reset(standardParts({ store, messages, recipients, subscriptions, blocks, requestLog, faults }), directory, store, events);
  return {
    clock,
    events,
    directory,
    blocks,
    recipients,
    messages,
    subscriptions,
    faults,
    requestLog,
    reset,
    async close() {
      messages.close();
      requestLog.close();
      await store.flush();
    },
  };
}
