// End-to-end tests, driven in Debian's Chromium (no browser download is possible here).
// scripts/test starts the servers and passes their URLs:
//   EXPLORER_URL        the release build served by `trunk serve`, kube-sim (KUBE_SIM_URL) behind it
//   EXPLORER_DEAD_URL   the same build with a closed port behind its proxy
//   EXPLORER_WWW_URL    the /explorer/ bundle served by kube-sim --www
//   EXPLORER_LEGACY_DISCOVERY_URL  that bundle served by a kube-sim --legacy-discovery-only
//   EXPLORER_HOSTILE_URL  tests/e2e/hostile-server.js (a server that lies) in front of kube-sim --www (hostile.spec.js)
//   EXPLORER_NO_METRICS_URL  that bundle served by a kube-sim --no-metrics (no metrics-server)
//   EXPLORER_PROXY_URL  the /explorer/ bundle served by the real `kubectl proxy --www`, in front of a
//                       kube-sim of its own (KUBECTL_PROXY_SIM_URL): the production path
//   EXPLORER_PROXY_EXEC_URL  the same bundle behind another kubectl proxy, started with --reject-paths='^$'
//                       so that exec and attach pass (terminal-proxy.spec.js)
//   EXPLORER_RUN_URL    `scripts/run --kubectl-proxy` in front of that same kubectl proxy
// The "trunk" project runs every spec; "kubectl-proxy" runs the read, watch, write and embedding
// specs again on the production path; "run-kubectl-proxy" the read path through scripts/run.
// A spec asks helpers.simUrl() for the kube-sim behind the page it drives (project metadata).
const { defineConfig } = require('@playwright/test');

const chromium = {
  // The interface follows the browser's languages (src/ui/i18n.rs): the specs read English.
  locale: 'en-US',
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
};

const projects = [
  {
    name: 'trunk',
    testIgnore: /(kubectl-proxy|terminal-proxy)\.spec\.js$/,
    use: { ...chromium, baseURL: process.env.EXPLORER_URL },
    metadata: {
      simUrl: process.env.KUBE_SIM_URL,
      wwwUrl: process.env.EXPLORER_WWW_URL,
      legacyDiscoveryUrl: process.env.EXPLORER_LEGACY_DISCOVERY_URL,
      noMetricsUrl: process.env.EXPLORER_NO_METRICS_URL,
    },
  },
];
if (process.env.EXPLORER_PROXY_URL) {
  projects.push({
    name: 'kubectl-proxy',
    testMatch: /(read-path|read-path-more|watch|watch-live|write|embed|kubectl-proxy|terminal-proxy)\.spec\.js$/,
    // kubectl proxy serves static files without CORS, so the mount API cannot load the bundle
    // from another origin: kubectl-proxy.spec.js shows that instead.
    grepInvert: /mount API|mount config/,
    use: { ...chromium, baseURL: process.env.EXPLORER_PROXY_URL },
    metadata: {
      simUrl: process.env.KUBECTL_PROXY_SIM_URL,
      wwwUrl: process.env.EXPLORER_PROXY_URL,
      execProxyUrl: process.env.EXPLORER_PROXY_EXEC_URL,
      kubectlProxy: true,
    },
  });
}
if (process.env.EXPLORER_RUN_URL) {
  projects.push({
    name: 'run-kubectl-proxy',
    testMatch: /read-path\.spec\.js$/,
    use: { ...chromium, baseURL: process.env.EXPLORER_RUN_URL },
    metadata: { simUrl: process.env.KUBECTL_PROXY_SIM_URL, wwwUrl: process.env.EXPLORER_PROXY_URL, kubectlProxy: true },
  });
}

module.exports = defineConfig({
  testDir: './specs',
  outputDir: './test-results',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // A test.only left in a spec fails the run instead of silently running that test alone.
  forbidOnly: true,
  fullyParallel: false,
  workers: 1,
  reporter: [['list'], ['json', { outputFile: 'artifacts/results.json' }]],
  use: { screenshot: 'only-on-failure' },
  projects,
});
