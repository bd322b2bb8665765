import { startPigeonhole } from 'pigeonhole';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The sandbox's base URL, for `inject('pigeonholeUrl')` in the tests. */
    pigeonholeUrl: string;
  }
}

/** Starts one sandbox (free ports, a temporary data directory) for every test file and worker. */
export default async function setup(project: TestProject) {
  const pigeonhole = await startPigeonhole();
  project.provide('pigeonholeUrl', pigeonhole.url);
  // Point your application at it here, e.g. process.env.EMAIL_API_URL = pigeonhole.url;
  // an application that sends over SMTP gets pigeonhole.smtp.host and pigeonhole.smtp.port.
  return () => pigeonhole.stop();
}
