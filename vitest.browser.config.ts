/**
 * @module `npm run test:browser`: the browser-facing behaviour in a real headless Chromium (Debian's
 * package, `scripts/install-chromium.sh`), driven by playwright-core, against `wrangler dev` of the
 * free and the paid `de` deployments, which `test/browser/servers.ts` starts with their own state.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'browser',
    environment: 'node',
    include: ['test/browser/**/*.test.ts'],
    globalSetup: ['test/browser/servers.ts'],
    testTimeout: 60_000,
    hookTimeout: 240_000,
    // One Chromium and two wrangler dev servers, shared by the cases in order.
    fileParallelism: false,
  },
});
