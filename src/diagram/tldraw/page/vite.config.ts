// Bundles the validator page into dist/tldraw-page (git-ignored): `npm run build:tldraw`.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../../../../dist/tldraw-page', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 4096,
  },
});
