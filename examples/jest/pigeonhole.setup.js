import { startPigeonhole } from 'pigeonhole';

/** Starts one sandbox (free ports, a temporary data directory) before any test file runs. */
export default async function globalSetup() {
  const pigeonhole = await startPigeonhole();
  // Read by pigeonhole.teardown.js, which runs in this same process.
  globalThis.pigeonhole = pigeonhole;
  // The test workers start after this and inherit the environment. Point your application at
  // the sandbox the same way (e.g. EMAIL_API_URL, or SMTP_HOST and SMTP_PORT from pigeonhole.smtp).
  process.env.PIGEONHOLE_URL = pigeonhole.url;
}
