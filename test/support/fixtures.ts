import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SendMailOptions } from 'nodemailer';
import { test as base } from 'vitest';
import { openStore, type OpenStore, type StoreOptions } from '../../server/storage/open-store.ts';
import { api, read, startApp, type TestServer, type TestServerOptions } from './app.ts';
import { flowClient } from './flow-helpers.ts';
import { processTracker } from './process-helpers.ts';
import { capturedId, smtpClient, trySend } from './smtp.ts';
import { connectEvents } from './ws.ts';

/**
 * The suite's Vitest fixtures (test/README.md). A test names what it needs and gets it set up
 * before it runs and torn down after, whatever happened:
 *
 * - `app`: the real Pigeonhole in-process (startApp) on a temporary data directory, one per test
 *   file, destroyed after the file's last test. Change its options for a whole file with
 *   `test.override('appOptions', { ... })` at the top of the file.
 * - `v1`: /v1 requests to `app` with the key `apiKey` ('test-key'; override it like appOptions).
 * - `get(path)`: the JSON body of a GET on `app` (the sandbox API, mostly).
 * - `flows`: the flow client (support/flow-helpers.ts) on `app`: the sandbox API and the /v1
 *   calls a flow test makes.
 * - `smtp`: a real SMTP client (nodemailer) on `app`'s capture port: `send` resolves with the
 *   capture id, `trySend` with the reply or the refusal as a value.
 * - `events`: a WebSocket client on `app`'s live push (/api/events), recording every frame; one
 *   per test, closed after it.
 * - `freshApp`: an app of the test's own (startApp with `appOptions`), for tests that must not
 *   share state with the rest of the file; destroyed after the test.
 * - `apps`: `start(options)` starts apps of the test's own, each with its options (a restart is
 *   `start({ dataDir: first.dataDir })` after `first.close()`); all are closed after the test,
 *   then their data directories deleted.
 * - `tempDir`: a new temporary directory, deleted after the test.
 * - `serverProcess`: starts the real server as its own process (`spawn`) and makes temporary
 *   directories (`tempDir`); whatever it started is killed and deleted after the test.
 * - `stores`: `open(options)` opens stores of the test's own (openStore, no app): each on a new
 *   directory in the test's `tempDir` unless `dataDir` is given (a restart is
 *   `open({ dataDir: first.dataDir })` after `first.close()`), with `storeOptions` and the
 *   options given; all closed after the test, before the directory goes.
 * - `storeOptions`: what `stores` opens with besides the tests' defaults (no reserve, no
 *   background probe, a silent log); change it for a file with `test.override('storeOptions', ...)`.
 * - `store`: one store opened by `stores` with `storeOptions`.
 */
/** The `stores` fixture: opens stores of a test's own. */
interface Stores {
  open(options?: Partial<StoreOptions>): Promise<OpenStore>;
}

/** What a test's store opens with unless told otherwise: no disk reserve, no probe during the test, nothing logged. */
const TEST_STORE: Partial<StoreOptions> = { reserveSize: 0, probeIntervalMs: 60_000, log: () => undefined };

/** The `apps` fixture: starts apps of a test's own. */
export interface Apps {
  start(options?: TestServerOptions): Promise<TestServer>;
}

export const test = base
  .extend('appOptions', { scope: 'file' }, {} as TestServerOptions)
  .extend('apiKey', { scope: 'file' }, 'test-key')
  .extend('app', { scope: 'file' }, async ({ appOptions }, { onCleanup }) => {
    const app = await startApp(appOptions);
    onCleanup(() => app.destroy());
    return app;
  })
  .extend('v1', { scope: 'file' }, ({ app, apiKey }) => api(app.url, apiKey))
  .extend(
    'get',
    { scope: 'file' },
    ({ app }) =>
      async (path: string): Promise<any> =>
        (await read(await fetch(app.url + path))).body,
  )
  .extend('flows', { scope: 'file' }, ({ app }) => flowClient(app.url))
  .extend('smtp', { scope: 'file' }, ({ app }, { onCleanup }) => {
    const transport = smtpClient(app.smtpPort);
    onCleanup(() => transport.close());
    return {
      port: app.smtpPort,
      transport,
      /** Sends and resolves with the capture id ("250 … Captured as <id>"). */
      send: async (mail: SendMailOptions) => capturedId((await transport.sendMail(mail)).response),
      /** Sends and resolves with the reply, or the refusal (code and text) as a value. */
      trySend: (mail: SendMailOptions) => trySend(transport, mail),
    };
  })
  .extend('events', async ({ app }, { onCleanup }) => {
    const events = await connectEvents(app.wsUrl);
    onCleanup(async () => {
      await events.close();
    });
    return events;
  })
  .extend('freshApp', async ({ appOptions }, { onCleanup }) => {
    const app: TestServer = await startApp(appOptions);
    onCleanup(() => app.destroy());
    return app;
  })
  .extend('apps', async ({}, { onCleanup }) => {
    const started: TestServer[] = [];
    onCleanup(async () => {
      // Every app closed before any directory goes: a restarted app shares its data directory.
      await Promise.all(started.map((app) => app.close()));
      await Promise.all([...new Set(started.map((app) => app.dataDir))].map((dir) => rm(dir, { recursive: true, force: true })));
    });
    const apps: Apps = {
      /** Starts an app (startApp) that is closed and deleted after the test. */
      start: async (options: TestServerOptions = {}) => {
        const app = await startApp(options);
        started.push(app);
        return app;
      },
    };
    return apps;
  })
  .extend('tempDir', async ({}, { onCleanup }) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-test-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    return dir;
  })
  .extend('serverProcess', async ({}, { onCleanup }) => {
    const processes = processTracker();
    onCleanup(() => processes.cleanup());
    return processes;
  })
  .extend('storeOptions', { scope: 'file' }, {} as Partial<StoreOptions>)
  .extend('stores', async ({ storeOptions, tempDir }, { onCleanup }) => {
    const opened: OpenStore[] = [];
    // Torn down before tempDir (which it depends on): every store closed before its files go.
    onCleanup(async () => {
      await Promise.all(opened.map((store) => store.close().catch(() => undefined)));
    });
    let made = 0;
    const stores: Stores = {
      /** Opens a store (openStore) that is closed after the test; on a new directory unless `dataDir` is given. */
      open: async (options = {}) => {
        const dataDir = options.dataDir ?? path.join(tempDir, `store-${++made}`);
        const store = await openStore({ ...TEST_STORE, ...storeOptions, ...options, dataDir });
        opened.push(store);
        return store;
      },
    };
    return stores;
  })
  .extend('store', ({ stores }) => stores.open());
