import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

/**
 * The email view of the MCP server (MCP Apps): built into one self-contained file,
 * dist/mcp-app/email.html (script and styles inline, nothing to fetch), which the server serves
 * as a `ui://` resource under a URI that carries its content hash (server/mcp/app-view.ts).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [inlineEverything()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/mcp-app', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: Number.MAX_SAFE_INTEGER,
    cssCodeSplit: false,
    modulePreload: false,
    rollupOptions: { output: { codeSplitting: false } },
  },
});

/** Moves the built script and stylesheet into the page and drops the files: a host gets one HTML file. */
function inlineEverything(): Plugin {
  return {
    name: 'pigeonhole-inline-everything',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const page = Object.values(bundle).find((file) => file.type === 'asset' && file.fileName.endsWith('.html'));
      if (page === undefined || page.type !== 'asset') return;
      let html = String(page.source);
      for (const [name, file] of Object.entries(bundle)) {
        if (file.type === 'chunk') {
          const tag = new RegExp(`<script[^>]*src="[^"]*${escape(file.fileName)}"[^>]*></script>`);
          // A script's text may hold "</script"; written <\/script it means the same to the parser's reader.
          html = html.replace(tag, () => `<script type="module">${file.code.replace(/<\/script/gi, '<\\/script')}</script>`);
          delete bundle[name];
        } else if (file.fileName.endsWith('.css')) {
          const tag = new RegExp(`<link[^>]*href="[^"]*${escape(file.fileName)}"[^>]*>`);
          html = html.replace(tag, () => `<style>${String(file.source)}</style>`);
          delete bundle[name];
        }
      }
      page.source = html;
      page.fileName = 'email.html';
    },
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
