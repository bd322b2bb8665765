import type { SandboxConfig } from '../sandbox-config.ts';
import type { Store } from '../storage/store.ts';
import { Blocks } from './blocks.ts';
import type { Clock } from './clock.ts';
import { Directory } from './directory.ts';
import { parseDuration } from './duration.ts';
import { Events } from './events.ts';
import { Messages } from './messages.ts';
import { Recipients } from './recipients.ts';
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
  close(): Promise<void>;
}

export function createSandbox({ store, config, clock }: DomainDeps): Sandbox {
  const events = new Events();
  const directory = new Directory(config);
  const blocks = new Blocks(store, directory, clock);
  const recipients = new Recipients(store, clock, (record) => events.emit('recipient.changed', record));
  const messages = new Messages(store, clock, recipients, blocks, events, parseDuration(config.delivery.delay) ?? 0);
  const subscriptions = new Subscriptions(store, clock, directory, recipients, events);
  return {
    clock,
    events,
    directory,
    blocks,
    recipients,
    messages,
    subscriptions,
    async close() {
      messages.close();
      await store.flush();
    },
  };
}
