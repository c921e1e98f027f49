// The write tools (edit, patch, apply, create, delete) live in their own wasm file, fetched the
// first time a collection or an object shows its actions: reading a cluster never downloads them,
// and a failed download is an alert with Retry rather than a dead page.
const { test, expect } = require('@playwright/test');
const { saveScreen } = require('./helpers');

const CHUNK = /\/split_write_tools\.wasm$/;
// Every file a split build fetches on demand: the split modules and the chunks they share.
const ON_DEMAND = /\/(split_\w+|chunk_\d+)\.wasm$/;

function chunkRequests(page, pattern = CHUNK) {
  const seen = [];
  page.on('request', (request) => {
    if (pattern.test(new URL(request.url()).pathname)) seen.push(request.url());
  });
  return seen;
}

test('the write tools are fetched once, when a view first needs them, and not for reading the cluster', async ({ page }) => {
  const chunks = chunkRequests(page);
  const onDemand = chunkRequests(page, ON_DEMAND);
  await page.goto('./');
  await expect(page.getByRole('navigation', { name: 'Resource types' }).getByRole('button', { name: /^pods po\b/ })).toBeVisible();
  // The first screen (discovery, cluster facts, decoding a captured body) needs no write code.
  await page.waitForLoadState('networkidle');
  expect(onDemand).toEqual([]);

  await page.getByRole('navigation', { name: 'Resource types' }).getByRole('button', { name: /^deployments/ }).click();
  await expect(page.getByRole('button', { name: 'Create…' })).toBeVisible();
  expect(chunks).toHaveLength(1);

  // Opening an object (another view that has actions) reuses the module already loaded.
  await page.getByTestId('grid-row').filter({ hasText: 'web' }).first().click();
  await expect(page.getByTestId('object-title')).toHaveText('Deployment web');
  await expect(page.getByRole('button', { name: 'Edit', exact: true })).toBeVisible();
  expect(chunks).toHaveLength(1);
});

test('a failed download of the write tools is an alert naming them, and Retry loads them', async ({ page }) => {
  const chunks = chunkRequests(page);
  let failing = true;
  await page.route(CHUNK, (route) => (failing ? route.abort('connectionreset') : route.continue()));
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));

  await page.goto('./?group=&version=v1&resource=configmaps&namespace=demo');
  const alert = page.getByTestId('load-failed');
  await expect(alert).toContainText('Could not load the write tools');
  await expect(page.getByRole('button', { name: 'Create…' })).toHaveCount(0);
  // The rest of the view works: the collection is listed.
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  await saveScreen(page, 'write-tools-load-failed');

  failing = false;
  await alert.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByRole('button', { name: 'Create…' })).toBeVisible();
  await expect(alert).toHaveCount(0);
  expect(chunks.length).toBeGreaterThanOrEqual(2);
  expect(errors).toEqual([]);
});

test('the Access view is fetched when it is first opened, and reading a collection does not fetch it', async ({ page }) => {
  const access = chunkRequests(page, /\/split_access_view\.wasm$/);
  const protobuf = chunkRequests(page, /\/split_protobuf\.wasm$/);
  await page.goto('./?namespace=demo');
  await page.getByRole('navigation', { name: 'Resource types' }).getByRole('button', { name: /^configmaps/ }).click();
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  // (Not networkidle: the collection opens live, and its watch stays open.)
  await expect(page.getByTestId('live-state')).toContainText('watching');
  expect(access).toEqual([]);
  expect(protobuf).toEqual([], 'no protobuf was shown, so its decoder was not fetched');
  await page.goto('./?namespace=demo&access=1');
  await expect(page.getByTestId('access-rules')).toContainText('*.*');
  expect(access).toHaveLength(1);
});

// The screens a route names (a collection, an object) and the decode tool's decoders are one part,
// `browse`: the first screen (the cluster's groups, the decode tool's form) is drawn from the
// module a page load fetches alone.
const BROWSE = /\/split_browse\.wasm$/;

test('the first screen fetches no part; pointing at the sidebar fetches the browse part before the click', async ({ page }) => {
  const browse = chunkRequests(page, BROWSE);
  const onDemand = chunkRequests(page, ON_DEMAND);
  await page.goto('./?namespace=demo');
  const sidebar = page.getByRole('navigation', { name: 'Resource types' });
  await expect(sidebar.getByRole('button', { name: /^pods po\b/ })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Decode a captured body' })).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(onDemand).toEqual([]);

  // The pointer on its way to a resource type: the part is fetched while it moves.
  await sidebar.getByRole('button', { name: /^pods po\b/ }).hover();
  await expect.poll(() => browse.length).toBe(1);
  await page.waitForLoadState('networkidle');
  await sidebar.getByRole('button', { name: /^configmaps/ }).click();
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  // An object, and another collection: the part already loaded serves them.
  await page.getByTestId('grid-row').first().click();
  await expect(page.getByTestId('object-title')).toContainText('ConfigMap');
  await sidebar.getByRole('button', { name: /^pods po\b/ }).click();
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  expect(browse).toHaveLength(1);
});

test('an address naming a collection fetches the browse part at start, and a failed download is an alert with Retry', async ({ page }) => {
  const browse = chunkRequests(page, BROWSE);
  let failing = true;
  await page.route(BROWSE, (route) => (failing ? route.abort('connectionreset') : route.continue()));
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));

  await page.goto('./?group=&version=v1&resource=configmaps&namespace=demo');
  const alert = page.getByTestId('load-failed');
  await expect(alert).toContainText('Could not load the collection view');
  // The rest of the page works: the sidebar, the top bar.
  await expect(page.getByRole('navigation', { name: 'Resource types' }).getByRole('button', { name: /^pods po\b/ })).toBeVisible();
  await saveScreen(page, 'collection-view-load-failed');

  failing = false;
  await alert.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  await expect(alert).toHaveCount(0);
  expect(browse.length).toBeGreaterThanOrEqual(2);
  expect(errors).toEqual([]);
});

test('decoding a captured body fetches the decoders with the browse part', async ({ page }) => {
  const browse = chunkRequests(page, BROWSE);
  await page.goto('./');
  const box = page.getByLabel('Body to decode');
  await expect(box).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(browse).toEqual([]);
  await box.fill('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"pasted"}}');
  await page.getByRole('button', { name: 'Decode', exact: true }).click();
  await expect(page.getByTestId('decode-media-type')).toHaveText('Decoded as application/json');
  await expect(page.getByText('pasted').first()).toBeVisible();
  expect(browse).toHaveLength(1);
});
