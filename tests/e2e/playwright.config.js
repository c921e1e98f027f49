// End-to-end tests: the release build served by `trunk serve` with kube-sim behind it, driven in
// Debian's Chromium (no browser download is possible here). scripts/test starts the servers and
// passes their URLs in EXPLORER_URL (kube-sim behind) and EXPLORER_DEAD_URL (a closed port behind).
const { defineConfig } = require('@playwright/test');

module.exports = defineConfig({
  testDir: './specs',
  outputDir: './test-results',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  reporter: [['list'], ['json', { outputFile: 'artifacts/results.json' }]],
  use: {
    baseURL: process.env.EXPLORER_URL,
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-dev-shm-usage',
      ],
    },
  },
});
