/** Stops the sandbox of pigeonhole.setup.js: frees its ports and removes its temporary data. */
export default async function globalTeardown() {
  await globalThis.pigeonhole?.stop();
}
