/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  // Native ES modules (with node --experimental-vm-modules, see package.json): no transform.
  transform: {},
  // One sandbox for the whole run: started before the first test file, stopped after the last.
  globalSetup: './pigeonhole.setup.js',
  globalTeardown: './pigeonhole.teardown.js',
};
