import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Events } from './domain/events.ts';
import type { Sandbox } from './domain/sandbox.ts';
import { DiskUsage } from './storage/disk/disk-usage.ts';
import type { CheckpointRuns, Store } from './storage/store.ts';
import type { MessageRecord, Source } from './domain/entities.ts';

/** Where the store's gauges read from; nothing is computed per request. */
interface StoreGauges {
  /** Captures stored now. */
  messagesStored(): number;
  /** Bytes the data directory takes on disk (cached, see storage/disk-usage.ts). */
  storeBytes(): Promise<number>;
  /** Files the data directory holds (cached like storeBytes). */
  storeFiles?(): Promise<number>;
  /** Told that captures changed on disk, so the size cache is measured again. */
  capturesChanged?(): void;
  /** Called with every failed storage write (reason: full, read-only, missing, error). */
  onWriteFailure?(listener: (reason: string) => void): () => void;
  /** The store's checkpoint runs (storage/store-upkeep.ts). */
  checkpointRuns?(): Readonly<CheckpointRuns>;
}

interface MetricsOptions {
  events: Events;
  store: StoreGauges;
  /** Node's process metrics (CPU, memory, event loop, GC). On in the server; tests may skip them. */
  processMetrics?: boolean;
}

/**
 * Every Prometheus metric Pigeonhole exposes, on its own Registry (never prom-client's global
 * one, so several servers in one process each count their own). The HTTP middleware and the
 * domain events feed the request and capture metrics; the SMTP server, the WebSocket hub and
 * fault injection call the plain functions below.
 */
export interface Metrics {
  readonly registry: Registry;
  /** The exposition format's content type. */
  readonly contentType: string;
  render(): Promise<string>;
  /** One HTTP request: the matched route template (never the raw URL), method and status. */
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  /** An SMTP client connected (one session). */
  smtpSession(): void;
  /** The SMTP server refused something; `reason` is one of a small fixed set (auth, size, fault, ...). */
  smtpRejection(reason: string): void;
  /** How many WebSocket clients are connected now. */
  websocketClients(count: number): void;
  /** A configured fault fired; `target` is `http` or `smtp`. */
  faultInjected(target: string): void;
  /** Stops listening to the domain events. */
  close(): void;
}

const SOURCES: readonly Source[] = ['api', 'smtp', 'flow'];

function createMetrics({ events, store, processMetrics = true }: MetricsOptions): Metrics {
  const registry = new Registry();
  if (processMetrics) collectDefaultMetrics({ register: registry });

  const httpRequests = new Counter({
    name: 'pigeonhole_http_requests_total',
    help: 'HTTP requests answered, by matched route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'pigeonhole_http_request_duration_seconds',
    help: 'Time from a request arriving to its handler finishing, by matched route template.',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const captures = new Counter({
    name: 'pigeonhole_captures_total',
    help: 'Emails captured, by how they came in (api, smtp, flow).',
    labelNames: ['source'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'pigeonhole_messages_stored',
    help: 'Captures stored now.',
    registers: [registry],
    collect() {
      this.set(store.messagesStored());
    },
  });
  new Gauge({
    name: 'pigeonhole_store_bytes',
    help: 'Bytes the data directory takes on disk (allocated blocks, as du counts them; refreshed at most every few seconds).',
    registers: [registry],
    async collect() {
      this.set(await store.storeBytes());
    },
  });
  if (store.storeFiles) {
    const files = store.storeFiles;
    new Gauge({
      name: 'pigeonhole_store_files',
      help: 'Files the data directory holds (refreshed at most every few seconds).',
      registers: [registry],
      async collect() {
        this.set(await files());
      },
    });
  }
  if (store.checkpointRuns) {
    const runs = store.checkpointRuns;
    // Checkpoints are written in the background (docs/storage.md, Start-up: checkpoints); when the
    // last run began and ended lets a benchmark or a dashboard line sends up with them.
    new Counter({
      name: 'pigeonhole_storage_checkpoint_runs_total',
      help: 'Checkpoint runs that tried a segment or wrote a file (background, on demand and at a clean stop).',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(runs().runs);
      },
    });
    new Counter({
      name: 'pigeonhole_storage_checkpoints_written_total',
      help: 'Checkpoint files written (one per segment, one for the packs).',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(runs().written);
      },
    });
    new Gauge({
      name: 'pigeonhole_storage_checkpoint_last_started_seconds',
      help: 'When the last checkpoint run began (Unix time; 0 before the first).',
      registers: [registry],
      collect() {
        this.set(runs().lastStartedAt / 1000);
      },
    });
    new Gauge({
      name: 'pigeonhole_storage_checkpoint_last_finished_seconds',
      help: 'When the last checkpoint run ended (Unix time; 0 before the first).',
      registers: [registry],
      collect() {
        this.set(runs().lastFinishedAt / 1000);
      },
    });
  }
  const writeFailures = new Counter({
    name: 'pigeonhole_storage_write_failures_total',
    help: 'Storage writes that failed, by reason (full, read-only, missing, error); nothing they covered was acknowledged.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of ['full', 'read-only', 'missing', 'error']) writeFailures.labels(reason).inc(0);
  const stopWriteFailures = store.onWriteFailure?.((reason) => writeFailures.labels(reason).inc());
  const smtpSessions = new Counter({ name: 'pigeonhole_smtp_sessions_total', help: 'SMTP sessions (client connections).', registers: [registry] });
  const smtpRejections = new Counter({
    name: 'pigeonhole_smtp_rejections_total',
    help: 'SMTP commands or messages refused, by reason.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const websocketClients = new Gauge({ name: 'pigeonhole_websocket_clients', help: 'WebSocket clients connected now.', registers: [registry] });
  const faultInjections = new Counter({
    name: 'pigeonhole_fault_injections_total',
    help: 'Injected faults that fired, by target (http, smtp).',
    labelNames: ['target'] as const,
    registers: [registry],
  });
  // Known label values start at 0, so rate() and absent-series alerts work from the first scrape.
  for (const source of SOURCES) captures.labels(source).inc(0);
  for (const target of ['http', 'smtp']) faultInjections.labels(target).inc(0);

  const onCreated = (record: MessageRecord) => {
    captures.labels(record.source).inc();
    store.capturesChanged?.();
  };
  const onDeleted = () => store.capturesChanged?.();
  const onCleared = () => store.capturesChanged?.();
  events.on('message.created', onCreated);
  events.on('message.deleted', onDeleted);
  events.on('message.cleared', onCleared);

  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    httpRequest(route, method, status, seconds) {
      httpRequests.labels(route, method, String(status)).inc();
      httpDuration.labels(route).observe(seconds);
    },
    smtpSession: () => smtpSessions.inc(),
    smtpRejection: (reason) => smtpRejections.labels(reason).inc(),
    websocketClients: (count) => websocketClients.set(count),
    faultInjected: (target) => faultInjections.labels(target).inc(),
    close() {
      stopWriteFailures?.();
      events.off('message.created', onCreated);
      events.off('message.deleted', onDeleted);
      events.off('message.cleared', onCleared);
    },
  };
}

export interface SandboxMetricsOptions {
  sandbox: Sandbox;
  store: Store;
  processMetrics?: boolean;
  /** How long a disk-usage total is reused (storage/disk-usage.ts). */
  diskCacheMs?: number;
}

/** The metrics of one running sandbox: its events, its store's size on disk. */
export function createSandboxMetrics({ sandbox, store, processMetrics, diskCacheMs }: SandboxMetricsOptions): { metrics: Metrics; diskUsage: DiskUsage } {
  const diskUsage = new DiskUsage(() => store.diskUsage(), diskCacheMs);
  const metrics = createMetrics({
    events: sandbox.events,
    processMetrics,
    store: {
      messagesStored: () => sandbox.messages.count(),
      storeBytes: () => diskUsage.bytes(),
      storeFiles: () => diskUsage.files(),
      capturesChanged: () => diskUsage.changed(),
      onWriteFailure: (listener) => store.health.onFailure((error) => listener(error.problem)),
      checkpointRuns: () => store.checkpointRuns(),
    },
  });
  const stopFaults = sandbox.faults.onInjected(({ target }) => metrics.faultInjected(target));
  const close = metrics.close.bind(metrics);
  metrics.close = () => {
    stopFaults();
    close();
  };
  return { metrics, diskUsage };
}
