import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The inbox UI: built into dist/ui, which the server serves at `/` (server/http/home.ts).
 * `npm run dev:ui` serves it with hot reload, proxying the API to a server on :8025.
 */
export default defineConfig({
  root: here,
  base: '/',
  plugins: [preact()],
  // Each component's stylesheet is a CSS module beside it (`styles.listScroller` for
  // `.list-scroller`); the scoped name keeps the class it came from, for reading the DOM.
  css: { modules: { localsConvention: 'camelCaseOnly', generateScopedName: '[local]_[hash:base64:5]' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    // The code editor (CodeMirror with HTML, CSS, JavaScript and JSON modes: 500 KB, 170 KB
    // gzipped) is its own chunk, loaded when the Templates page first shows an editor; the
    // inbox's own bundle stays near 190 KB.
    chunkSizeWarningLimit: 560,
  },
  server: {
    proxy: {
      '/api': { target: 'http://127.0.0.1:8025', ws: true },
      '/v1': 'http://127.0.0.1:8025',
    },
  },
});
