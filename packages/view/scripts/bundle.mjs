// Bundles the browser page (three.js included) into dist/client/view.js, which renderViewHtml
// inlines: the page needs no network and no CDN.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  absWorkingDir: root,
  entryPoints: ['src/client/main.ts'],
  outfile: 'dist/client/view.js',
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2022'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
