// Production serving and embedding: the release bundle built with --public-url /explorer/ and
// served by kube-sim --www (the arrangement of `kubectl proxy --www=dist --www-prefix=/explorer/`)
// in the "trunk" project, and by the real `kubectl proxy --www` in the "kubectl-proxy" project,
// configured by its host page, embedded in an iframe and through the mount API by the example
// host pages of tests/e2e/host (served by node on origins of their own), driven by postMessage.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl, wwwUrl } = require('./helpers');
const { startHeaderProxy, startHostServer } = require('../host/server');

const wwwOrigin = () => new URL(wwwUrl()).origin;

async function serverJson(request, url) {
  const response = await request.get(url, { headers: { Accept: 'application/json' } });
  expect(response.ok()).toBeTruthy();
  return response.json();
}

const hosts = [];
async function host(explorerUrl = wwwUrl(), apiUrl = wwwOrigin()) {
  const started = await startHostServer({ explorerUrl, apiUrl });
  hosts.push(started);
  return started;
}
test.afterEach(async () => {
  while (hosts.length) await hosts.pop().close();
});

/** Fails the test if the page (or a frame of it) opens a dialog, as injected markup would. */
function forbidDialogs(page) {
  const dialogs = [];
  page.on('dialog', async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  return dialogs;
}

test('the bundle under /explorer/ works against the API beside it, as kubectl proxy --www serves it', async ({ page, request }) => {
  const bare = await request.get(wwwUrl().replace(/\/$/, ''), { maxRedirects: 0 });
  expect(bare.status()).toBe(301);
  const prefix = new URL(wwwUrl()).pathname;
  expect(bare.headers().location).toBe(prefix);

  await page.goto(`${wwwUrl()}?group=&version=v1&resource=pods&namespace=demo`);
  await expect(page.getByTestId('api-base')).toHaveText(wwwOrigin());
  await expect(page.getByTestId('api-base-source')).toHaveCount(0);
  const pods = await serverJson(request, `${wwwOrigin()}/api/v1/namespaces/demo/pods`);
  await expect(page.getByTestId('grid-row')).toHaveCount(pods.items.length);
  await expect(page.getByRole('navigation', { name: 'Resource types' })).toBeVisible();
  const firstPod = await page.getByTestId('grid-row').first().locator('td:first-child').textContent();
  await page.getByTestId('grid-row').first().click();
  // The view is written under the bundle's own path, wherever it is served.
  await expect(page).toHaveURL(`${wwwUrl()}?group=&version=v1&resource=pods&namespace=demo&name=${firstPod}`);
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${firstPod}`);
  await page.reload();
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${firstPod}`);
  await page.goBack();
  await expect(page.getByTestId('grid-row')).toHaveCount(pods.items.length);
  await saveScreen(page, 'www-bundle-pods');
});

test('the API base comes from the page, is shown, and a bad one is an error rather than a fallback', async ({ page, request }) => {
  // Another origin's API (kube-sim's CORS allows local pages): an object that only it has shows.
  const name = `only-on-the-other-api-${Date.now()}`;
  const created = await request.post(`${simUrl()}/api/v1/namespaces/demo/configmaps`, {
    data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'demo' }, data: { k: 'v' } },
  });
  expect(created.status()).toBe(201);
  await page.goto(`${wwwUrl()}?api-base=${encodeURIComponent(simUrl())}&group=&version=v1&resource=configmaps&namespace=demo`);
  await expect(page.getByTestId('api-base')).toHaveText(simUrl());
  await expect(page.getByTestId('api-base-source')).toHaveText('from the URL query');
  await expect(page.getByTestId('grid-row').filter({ hasText: name })).toHaveCount(1);
  // The api-base parameter stays on the URLs the explorer writes.
  await page.getByTestId('grid-row').filter({ hasText: name }).click();
  await expect(page).toHaveURL(new RegExp(`name=${name}&api-base=`));
  await request.delete(`${simUrl()}/api/v1/namespaces/demo/configmaps/${name}`);

  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${wwwUrl()}?api-base=${encodeURIComponent('javascript:alert(1)')}`);
  await expect(page.getByTestId('api-base-error')).toContainText('expected an http:// or https:// URL');
  await expect(page.getByTestId('api-base')).toHaveText('invalid (see below)');
  await expect(page.getByTestId('cluster-version')).toHaveText('not connected');
  expect(requests.filter((u) => u.includes('/version') || u.includes('/api'))).toEqual([]);
  await saveScreen(page, 'www-bad-api-base');
});

test('a host that edits index.html names the API with <meta> or data-api-base, and they win over the query', async ({ page, request }) => {
  // What a host serving the bundle does: add the tag or attribute to the bundle's index.html.
  let edit = (html) => html;
  const proxy = await startHeaderProxy({ target: wwwOrigin(), headers: {}, rewriteHtml: (html) => edit(html) });
  hosts.push(proxy);
  const bundle = `${proxy.origin}${new URL(wwwUrl()).pathname}`;
  const pods = await serverJson(request, `${simUrl()}/api/v1/namespaces/demo/pods`);
  edit = (html) => html.replace('<head>', `<head><meta name="kube-api-explorer-api-base" content="${simUrl()}/">`);
  await page.goto(`${bundle}?api-base=${encodeURIComponent('http://127.0.0.1:9')}&group=&version=v1&resource=pods&namespace=demo`);
  await expect(page.getByTestId('api-base')).toHaveText(simUrl());
  await expect(page.getByTestId('api-base-source')).toHaveText('from <meta name="kube-api-explorer-api-base">');
  await expect(page.getByTestId('grid-row')).toHaveCount(pods.items.length);

  edit = (html) =>
    html
      .replace('<head>', '<head><meta name="kube-api-explorer-api-base" content="http://127.0.0.1:9">')
      .replace('<body>', `<body data-api-base="${simUrl()}">`);
  await page.goto(`${bundle}?group=&version=v1&resource=pods&namespace=demo`);
  await expect(page.getByTestId('api-base')).toHaveText(simUrl());
  await expect(page.getByTestId('api-base-source')).toHaveText('from the data-api-base attribute');
  await expect(page.getByTestId('grid-row')).toHaveCount(pods.items.length);

  edit = (html) => html.replace('<head>', '<head><meta name="kube-api-explorer-api-base" content="ftp://files.example.com">');
  await page.goto(`${bundle}?api-base=${encodeURIComponent(simUrl())}`);
  await expect(page.getByTestId('api-base-error')).toContainText(
    'API base "ftp://files.example.com" from <meta name="kube-api-explorer-api-base">: expected an http:// or https:// URL, or a path on this origin starting with /; the scheme ftp: is not allowed',
  );
});

test('embedded in an iframe: navigated by the host, it reports the selection, themed and read-only', async ({ page, request }) => {
  const dashboard = await host();
  const dialogs = forbidDialogs(page);
  await page.goto(`${dashboard.origin}/iframe.html?theme=dark&accent=%23e4572e&readOnly=1`);
  await expect(page.getByTestId('host-status')).toHaveText('ready');
  const frame = page.frameLocator('#explorer');
  await expect(frame.getByTestId('embed-waiting')).toBeVisible();
  await expect(frame.getByRole('navigation', { name: 'Resource types' })).toHaveCount(0);
  await expect(frame.getByTestId('read-only-host')).toHaveText('Read-only (set by the host)');
  await expect(frame.getByTestId('host-messages')).toHaveText('0 accepted, 0 ignored, 0 invalid');
  const colours = await frame.locator('body').evaluate((body) => ({
    background: getComputedStyle(body).backgroundColor,
    accent: getComputedStyle(document.querySelector('.topbar__title')).color,
  }));
  expect(colours).toEqual({ background: 'rgb(13, 17, 23)', accent: 'rgb(228, 87, 46)' });

  await page.getByLabel('Resource', { exact: true }).fill('pods');
  await page.getByLabel('Namespace', { exact: true }).fill('demo');
  await page.getByRole('button', { name: 'Navigate' }).click();
  const pods = await serverJson(request, `${wwwOrigin()}/api/v1/namespaces/demo/pods`);
  await expect(frame.getByTestId('grid-row')).toHaveCount(pods.items.length);
  await expect(frame.getByTestId('host-messages')).toHaveText('1 accepted, 0 ignored, 0 invalid');

  // A deployment by group, the preferred version found by discovery.
  await page.getByLabel('Group', { exact: true }).fill('apps');
  await page.getByLabel('Resource', { exact: true }).fill('deployments');
  await page.getByRole('button', { name: 'Navigate' }).click();
  await expect(frame.getByRole('region', { name: 'deployments collection' })).toBeVisible();
  const deployments = await serverJson(request, `${wwwOrigin()}/apis/apps/v1/namespaces/demo/deployments`);
  await expect(frame.getByTestId('grid-row')).toHaveCount(deployments.items.length);
  const first = deployments.items.map((d) => d.metadata.name).sort()[0];
  await frame.getByTestId('grid-row').filter({ hasText: first }).first().click();
  await expect(frame.getByTestId('object-title')).toHaveText(`Deployment ${first}`);
  const object = deployments.items.find((d) => d.metadata.name === first);
  await expect(page.getByTestId('host-selected')).toHaveText(`deployments demo/${first} uid=${object.metadata.uid}`);

  // Opening the same object again (after going back) is told again.
  await page.evaluate(() => { document.getElementById('selected').textContent = 'cleared'; });
  await frame.getByRole('button', { name: '← deployments' }).click();
  await frame.getByTestId('grid-row').filter({ hasText: first }).first().click();
  await expect(page.getByTestId('host-selected')).toHaveText(`deployments demo/${first} uid=${object.metadata.uid}`);

  // Theme and read-only follow later messages from the host.
  await page.evaluate((origin) => {
    const target = document.getElementById('explorer').contentWindow;
    target.postMessage({ type: 'kube-api-explorer:set-theme', theme: 'light', accent: 'teal' }, origin);
    target.postMessage({ type: 'kube-api-explorer:set-read-only', readOnly: false }, origin);
  }, wwwOrigin());
  await expect(frame.getByTestId('read-only-host')).toHaveCount(0);
  await expect.poll(() => frame.locator('body').evaluate((body) => getComputedStyle(body).backgroundColor)).toBe('rgb(246, 248, 250)');
  expect(await frame.locator('.topbar__title').evaluate((e) => getComputedStyle(e).color)).toBe('rgb(0, 128, 128)');
  // A malformed message from the right origin is counted as invalid, with why.
  await page.evaluate((origin) => {
    document.getElementById('explorer').contentWindow.postMessage({ type: 'kube-api-explorer:set-theme', accent: 'url(x)' }, origin);
  }, wwwOrigin());
  await expect(frame.getByTestId('host-messages')).toContainText('1 invalid — last: kube-api-explorer:set-theme: accent "url(x)": expected a CSS colour');

  // An unknown type is reported in the frame, not silently ignored.
  await page.getByLabel('Group', { exact: true }).fill('nope.example.com');
  await page.getByRole('button', { name: 'Navigate' }).click();
  await expect(frame.getByTestId('host-navigation-problem')).toContainText('discovery lists no API group nope.example.com');
  await saveScreen(page, 'embed-iframe');
  expect(dialogs).toEqual([]);
});

test('a message from an origin the host did not configure is ignored, and counted', async ({ page }) => {
  const trusted = await host();
  const stranger = await host();
  // The stranger frames the explorer, which is configured to obey the trusted dashboard only.
  await page.goto(`${stranger.origin}/iframe.html?trusted=${encodeURIComponent(trusted.origin)}`);
  const frame = page.frameLocator('#explorer');
  await expect(frame.getByTestId('embed-waiting')).toBeVisible();
  await page.getByLabel('Resource', { exact: true }).fill('pods');
  await page.getByRole('button', { name: 'Navigate' }).click();
  await expect(frame.getByTestId('host-messages')).toHaveText(
    `0 accepted, 1 ignored, 0 invalid — last: ignored a message from ${stranger.origin}: only ${trusted.origin} may drive the explorer`,
  );
  await expect(frame.getByTestId('embed-waiting')).toBeVisible();
  await expect(frame.getByTestId('grid-row')).toHaveCount(0);
  // Nor does the explorer talk to the stranger: its ready message was addressed to the trusted origin.
  await expect(page.getByTestId('host-status')).toHaveText('waiting for ready');
  await saveScreen(page, 'embed-foreign-origin');
});

test('mounted through the mount API: configured, navigated, heard, and unmounted with its watch closed', async ({ page, request }) => {
  const dashboard = await host();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${dashboard.origin}/mount.html?readOnly=1&theme=light&accent=rebeccapurple`);
  await expect(page.getByTestId('host-status')).toHaveText('mounted');
  const mounted = page.getByTestId('mount-target');
  // Only the element is the explorer's: the host page's header is untouched.
  await expect(page.getByRole('heading', { name: 'Example dashboard (mount API)' })).toBeVisible();
  await expect(mounted.getByTestId('api-base')).toHaveText(wwwOrigin());
  await expect(mounted.getByTestId('api-base-source')).toHaveText('from the mount config');
  await expect(mounted.getByTestId('read-only-host')).toBeVisible();
  await expect(mounted).toHaveAttribute('data-theme', 'light');
  expect(await mounted.evaluate((e) => getComputedStyle(e.querySelector('.topbar__title')).color)).toBe('rgb(102, 51, 153)');
  const pods = await serverJson(request, `${wwwOrigin()}/api/v1/namespaces/demo/pods`);
  await expect(mounted.getByTestId('grid-row')).toHaveCount(pods.items.length);
  // The host page's URL is not the explorer's to change.
  const hostUrl = page.url();
  await mounted.getByTestId('grid-row').first().click();
  await expect(mounted.getByTestId('object-title')).toHaveText(/^Pod /);
  expect(page.url()).toBe(hostUrl);
  const podName = (await mounted.getByTestId('object-title').textContent()).replace(/^Pod /, '');
  const pod = pods.items.find((p) => p.metadata.name === podName);
  await expect(page.getByTestId('host-selected')).toHaveText(`pods demo/${podName} uid=${pod.metadata.uid}`);

  await page.getByLabel('Resource', { exact: true }).fill('configmaps');
  await page.getByRole('button', { name: 'Navigate' }).click();
  await expect(mounted.getByRole('region', { name: 'configmaps collection' })).toBeVisible();
  // Collections open live: the configmaps are watched at once; Pages ends the watch, Live opens
  // one again.
  await expect(mounted.getByTestId('live-state')).toHaveText(/^watching/);
  const openStreams = async () => (await serverJson(request, `${wwwOrigin()}/_sim/state`)).openStreams;
  const live = await openStreams();
  await mounted.getByTestId('mode-pages').click();
  await expect(mounted.getByTestId('live-view')).toHaveCount(0);
  await expect.poll(openStreams).toBe(live - 1);
  await mounted.getByTestId('mode-live').click();
  await expect(mounted.getByTestId('live-state')).toHaveText(/^watching/);
  await expect.poll(openStreams).toBe(live);
  const before = live - 1;
  await saveScreen(page, 'embed-mount');

  // The handle takes the postMessage format too.
  await page.evaluate(() => window.explorerHandle.post({ type: 'kube-api-explorer:set-theme', theme: 'dark' }));
  await expect(mounted).toHaveAttribute('data-theme', 'dark');

  await page.getByRole('button', { name: 'Unmount' }).click();
  await expect(page.getByTestId('host-status')).toHaveText('unmounted');
  await expect(mounted).toBeEmpty();
  await expect(mounted).not.toHaveAttribute('data-theme', /./);
  await expect.poll(async () => (await serverJson(request, `${wwwOrigin()}/_sim/state`)).openStreams).toBe(before);
  // The handle refuses to drive what is gone, saying why.
  const late = await page.evaluate(() => {
    try {
      window.explorerHandle.navigate({ resource: 'pods' });
      return 'accepted';
    } catch (e) {
      return e.message;
    }
  });
  expect(late).toBe('kube-api-explorer: this explorer was unmounted');
  expect(errors).toEqual([]);
});

test('a bad mount config throws, naming each problem', async ({ page }) => {
  const dashboard = await host();
  await page.goto(`${dashboard.origin}/mount.html?accent=${encodeURIComponent('red; background: url(//evil)')}`);
  await expect(page.getByTestId('host-status')).toHaveText(
    /^mount failed: kube-api-explorer mount: config.accent "red; background: url\(\/\/evil\)": expected a CSS colour/,
  );
  await expect(page.getByTestId('mount-target')).toBeEmpty();
});

test('labels and annotations holding markup render as text', async ({ page, request }) => {
  const payload = '<img src=x onerror=alert(1)>';
  const name = `markup-${Date.now()}`;
  const created = await request.post(`${wwwOrigin()}/api/v1/namespaces/demo/configmaps`, {
    data: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'demo', labels: { note: payload }, annotations: { note: payload } },
      data: { html: payload },
    },
  });
  expect(created.status()).toBe(201);
  const dialogs = forbidDialogs(page);
  await page.goto(`${wwwUrl()}?group=&version=v1&resource=configmaps&namespace=demo&name=${name}`);
  const labels = page.getByTestId('labels');
  await expect(labels.getByText(`note=${payload}`, { exact: true })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Metadata' }).getByText(`note=${payload}`, { exact: true })).toHaveCount(2);
  await expect(page.getByTestId('document-text')).toContainText(payload);
  await expect(page.locator('img')).toHaveCount(0);
  await saveScreen(page, 'markup-as-text');
  await page.goto(`${wwwUrl()}?group=&version=v1&resource=configmaps&namespace=demo&as=json`);
  await expect(page.getByTestId('document-text')).toContainText(payload);
  await expect(page.locator('img')).toHaveCount(0);
  expect(dialogs).toEqual([]);
  await request.delete(`${wwwOrigin()}/api/v1/namespaces/demo/configmaps/${name}`);
});

test('behind the security headers scripts/csp prints, it runs, and only the named host may frame it', async ({ page, request }) => {
  const headers = {};
  const proxy = await startHeaderProxy({ target: wwwOrigin(), headers });
  hosts.push(proxy);
  const explorerUrl = `${proxy.origin}${new URL(wwwUrl()).pathname}`;
  const dashboard = await host(explorerUrl, proxy.origin);
  const stranger = await host(explorerUrl, proxy.origin);
  // scripts/csp reads the bundle's index.html for the hash of trunk's inline loader.
  const bundle = fs.mkdtempSync(path.join(os.tmpdir(), 'kae-csp-'));
  fs.writeFileSync(path.join(bundle, 'index.html'), await (await request.get(wwwUrl())).text());
  const csp = execFileSync('python3', [path.join(__dirname, '..', '..', '..', 'scripts', 'csp'), bundle, '--frame-ancestors', dashboard.origin])
    .toString()
    .trim();
  fs.rmSync(bundle, { recursive: true });
  expect(csp).toContain("'wasm-unsafe-eval'");
  expect(csp).toContain(`frame-ancestors ${dashboard.origin}`);
  Object.assign(headers, { 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff' });

  const violations = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/.test(message.text())) violations.push(message.text());
  });
  await page.goto(`${explorerUrl}?group=&version=v1&resource=pods&namespace=demo`);
  const pods = await serverJson(request, `${wwwOrigin()}/api/v1/namespaces/demo/pods`);
  await expect(page.getByTestId('grid-row')).toHaveCount(pods.items.length);
  await page.getByRole('button', { name: 'JSON', exact: true }).click();
  await expect(page.getByTestId('response-kind')).toHaveText('PodList');
  expect(violations).toEqual([]);
  // The schema explorer indents each field by its depth through the CSSOM, which the policy
  // allows (a style attribute would be refused, and every row drawn at the left edge).
  await page.goto(`${explorerUrl}?group=&version=v1&resource=pods&explain=spec.containers.resources`);
  const nested = page.locator('li.explain__row[data-path="spec.containers.resources"]');
  await expect(nested).toBeVisible();
  const padding = (row) => row.evaluate((e) => parseFloat(getComputedStyle(e).paddingLeft));
  expect(await padding(nested)).toBeGreaterThan(await padding(page.locator('li.explain__row[data-path="spec"]')));
  expect(violations).toEqual([]);

  await page.goto(`${dashboard.origin}/iframe.html`);
  await expect(page.getByTestId('host-status')).toHaveText('ready');
  await expect(page.frameLocator('#explorer').getByTestId('embed-waiting')).toBeVisible();
  expect(violations).toEqual([]);

  await page.goto(`${stranger.origin}/iframe.html?trusted=${encodeURIComponent(stranger.origin)}`);
  await expect.poll(() => violations.join('\n')).toContain('frame-ancestors');
  await expect(page.getByTestId('host-status')).toHaveText('waiting for ready');
  await saveScreen(page, 'embed-frame-ancestors-refused');
});

test('a terminal behind the security headers is drawn with its theme and cell sizes, and nothing is refused', async ({ page, request }) => {
  // xterm.js writes its theme and its cells' dimensions as <style> text, which this policy refuses
  // (no 'unsafe-inline' for styles): assets/terminal/glue.js routes that text to constructable
  // stylesheets instead. Without it, the console shows "Refused to apply inline style" and the
  // rows take the page's colours and no height of their own.
  const headers = {};
  const proxy = await startHeaderProxy({ target: wwwOrigin(), headers });
  hosts.push(proxy);
  const explorerUrl = `${proxy.origin}${new URL(wwwUrl()).pathname}`;
  const bundle = fs.mkdtempSync(path.join(os.tmpdir(), 'kae-csp-'));
  fs.writeFileSync(path.join(bundle, 'index.html'), await (await request.get(wwwUrl())).text());
  const csp = execFileSync('python3', [path.join(__dirname, '..', '..', '..', 'scripts', 'csp'), bundle]).toString().trim();
  fs.rmSync(bundle, { recursive: true });
  // 'self' and the hash of the empty text only: no 'unsafe-inline'.
  expect(csp).toContain("style-src 'self' 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=';");
  Object.assign(headers, { 'Content-Security-Policy': csp });
  const violations = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/.test(message.text())) violations.push(message.text());
  });
  const pods = await serverJson(request, `${wwwOrigin()}/api/v1/namespaces/demo/pods`);
  const pod = pods.items.find((p) => p.status.phase === 'Running' && p.spec.containers.some((c) => c.name === 'web'));
  await page.goto(`${explorerUrl}?group=&version=v1&resource=pods&namespace=demo&name=${pod.metadata.name}`);
  await page.getByRole('region', { name: 'Subresources' }).getByRole('button', { name: 'exec', exact: true }).click();
  const terminal = page.getByTestId('terminal');
  await expect(terminal.locator('.xterm-rows')).toBeAttached();
  // xterm's theme rule (the rows' font size and white-space: pre) and its dimensions rule (each
  // row's height) both apply.
  const drawn = () => terminal.evaluate((panel) => {
    const screen = panel.querySelector('[data-testid="terminal-screen"]');
    const rows = panel.querySelector('.xterm-rows');
    const row = rows.firstElementChild;
    return {
      themed: getComputedStyle(rows).whiteSpace === 'pre' && getComputedStyle(rows).fontSize === '14px' && !!screen,
      rowHeight: row ? parseFloat(getComputedStyle(row).height) : 0,
      adopted: document.adoptedStyleSheets.length,
      styleText: [...panel.querySelectorAll('style')].map((s) => s.childNodes.length).reduce((a, b) => a + b, 0),
    };
  });
  await expect.poll(async () => (await drawn()).rowHeight).toBeGreaterThan(10);
  const state = await drawn();
  expect(state.themed).toBe(true);
  expect(state.adopted).toBeGreaterThan(0);
  expect(state.styleText, 'no <style> element carries text the policy would refuse').toBe(0);
  expect(violations).toEqual([]);
  await saveScreen(page, 'terminal-under-csp');
});
