// Builds the web console into dist/console, served by `gantry serve` under /console.
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  publicDir: 'public',
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
