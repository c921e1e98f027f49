// Shared by the specs: where screenshots go, and the servers behind the page a spec drives (each
// Playwright project names its own in its metadata: see playwright.config.js).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test, expect } = require('@playwright/test');

const SCREENS = path.join(__dirname, '..', 'artifacts', 'screens');

/** The running project's metadata. */
function project() {
  return test.info().project;
}

/**
 * Saves a full-page screenshot of the current screen under artifacts/screens/NAME.png (the
 * "trunk" project) or NAME.PROJECT.png (the others, so that they do not overwrite each other).
 */
async function saveScreen(page, name) {
  const { name: projectName } = project();
  const file = projectName === 'trunk' ? `${name}.png` : `${name}.${projectName}.png`;
  await page.screenshot({ path: path.join(SCREENS, file), fullPage: true });
}

/** The kube-sim origin behind the explorer (for asking the server directly). */
function simUrl() {
  const url = project().metadata.simUrl;
  if (!url) throw new Error('no kube-sim URL for this project (KUBE_SIM_URL): run the end-to-end tests through scripts/test');
  return url;
}

/** The /explorer/ bundle's page: served by kube-sim --www, or by the real kubectl proxy --www. */
function wwwUrl() {
  const url = project().metadata.wwwUrl;
  if (!url) throw new Error('no /explorer/ bundle URL for this project (EXPLORER_WWW_URL): run the end-to-end tests through scripts/test');
  return url;
}

/** The /explorer/ bundle served by a kube-sim started with --legacy-discovery-only. */
function legacyDiscoveryUrl() {
  const url = project().metadata.legacyDiscoveryUrl;
  if (!url) throw new Error('no legacy-discovery bundle URL for this project (EXPLORER_LEGACY_DISCOVERY_URL): run the end-to-end tests through scripts/test');
  return url;
}

/** The /explorer/ bundle served by a kube-sim started with --no-metrics (no metrics-server). */
function noMetricsUrl() {
  const url = project().metadata.noMetricsUrl;
  if (!url) throw new Error('no no-metrics bundle URL for this project (EXPLORER_NO_METRICS_URL): run the end-to-end tests through scripts/test');
  return url;
}

/** Whether the page is served by the real kubectl proxy (the production path). */
function behindKubectlProxy() {
  return Boolean(project().metadata.kubectlProxy);
}

/** The bearer tokens of kube-sim's demo users (admin, dev, viewer). */
const TOKENS = { admin: 'admin-token', dev: 'dev-token', viewer: 'viewer-token' };

/** Every API request of the page carries USER's token (as a browser behind an authenticating
 * proxy would send it); returns the requests sent, as sent. */
async function asUser(page, user) {
  const sent = [];
  await page.route(
    (url) => /^\/(api|apis)(\/|$)|^\/version$/.test(url.pathname),
    async (route) => {
      const request = route.request();
      sent.push({ method: request.method(), path: new URL(request.url()).pathname });
      await route.continue({ headers: { ...request.headers(), authorization: `Bearer ${TOKENS[user]}` } });
    },
  );
  return sent;
}

/** Opens the editor of the object on the page, waits for its text and for the schema check. */
async function openEditor(page, kind) {
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  const editor = page.getByRole('textbox', { name: 'Object editor' });
  await expect(editor).toHaveValue(new RegExp(`kind: ${kind}`));
  await expect(page.getByTestId('validation-state')).toContainText("Nothing the server's schema would refuse");
  return editor;
}

/**
 * Asserts that CONTROL is disabled, then takes its `disabled` attribute away and clicks it (as
 * anyone can with the browser's developer tools): Chromium fires no click on a disabled control,
 * so only this reaches what stands behind it, which must refuse too. The caller checks that no
 * request left the page.
 */
async function clickPastDisabled(control) {
  await expect(control).toBeDisabled();
  await control.evaluate((element) => element.removeAttribute('disabled'));
  await expect(control).toBeEnabled();
  await control.click();
}

/** The name of a running demo pod of the web Deployment (its container reads LOG_LEVEL from
 * web-config), on the kube-sim the project's page talks to: the terminal specs open a shell in it. */
async function webPod(request) {
  const headers = { Accept: 'application/json' };
  const pods = await (await request.get(`${simUrl()}/api/v1/namespaces/demo/pods`, { headers })).json();
  const pod = pods.items.find((p) => p.status.phase === 'Running' && p.spec.containers.some((c) => c.name === 'web'));
  expect(pod, 'a running web pod in demo').toBeTruthy();
  return pod.metadata.name;
}

/** The real `kubectl ARGS…` against this project's kube-sim (a kubeconfig of its own); its output. */
function kubectl(...args) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kae-kubectl-'));
  const config = path.join(dir, 'config');
  fs.writeFileSync(config, [
    'apiVersion: v1', 'kind: Config',
    `clusters: [{name: sim, cluster: {server: "${simUrl()}"}}]`,
    'contexts: [{name: sim, context: {cluster: sim}}]', 'current-context: sim', '',
  ].join('\n'));
  try {
    return execFileSync('kubectl', args, { env: { ...process.env, KUBECONFIG: config } }).toString();
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
}

module.exports = { kubectl, saveScreen, simUrl, wwwUrl, legacyDiscoveryUrl, noMetricsUrl, behindKubectlProxy, asUser, openEditor, clickPastDisabled, webPod, TOKENS };
