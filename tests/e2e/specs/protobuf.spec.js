// Protobuf decoded in full (#19 item 4): a pod list asked for as protobuf, and a protobuf watch
// stream captured from the server, shown as the documents the other representations give; the
// decoder is a wasm part of its own, fetched only when protobuf is shown; a custom resource,
// which has no protobuf form, says why. Live, the list and the watch are protobuf too (the watch
// `;stream=watch` frames), and a custom resource is watched in JSON, saying why.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

const PART = /\/split_protobuf\.wasm$/;

function partRequests(page) {
  const seen = [];
  page.on('request', (request) => {
    if (PART.test(new URL(request.url()).pathname)) seen.push(request.url());
  });
  return seen;
}

test('a pod list asked for as protobuf is decoded in full, by a part fetched only then', async ({ page, request }) => {
  const parts = partRequests(page);
  const pods = await (await request.get(`${simUrl()}/api/v1/namespaces/demo/pods`, { headers: { Accept: 'application/json' } })).json();
  const first = pods.items.map((p) => p.metadata.name).sort()[0];
  // Read by pages (a live view's watch never lets the network go idle).
  await page.goto('./?group=&version=v1&resource=pods&namespace=demo&watch=0');
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(parts).toEqual([]);

  await page.getByRole('group', { name: 'Representation' }).getByRole('button', { name: 'Protobuf', exact: true }).click();
  await expect(page.getByTestId('response-content-type')).toHaveText('application/vnd.kubernetes.protobuf');
  await expect(page.getByTestId('response-kind')).toHaveText('PodList');
  await expect(page.getByTestId('protobuf-decoded')).toContainText('decoded in full in the browser');
  const text = page.getByTestId('document-text');
  await expect(text).toContainText('kind: PodList');
  await expect(text).toContainText(`name: ${first}`);
  // The spec, not only the metadata: the PodList's messages are decoded down to the containers.
  await expect(text).toContainText('containers:');
  await expect(text).toContainText('image: ');
  await expect(page.getByTestId('protobuf-not-served')).toHaveCount(0);
  expect(parts).toHaveLength(1);
  await saveScreen(page, 'protobuf-pod-list');

  // JSON of the same list, for comparison: the same pod with the same image.
  const image = pods.items.find((p) => p.metadata.name === first).spec.containers[0].image;
  await expect(text).toContainText(`image: ${image}`);
});

test('one pod asked for as protobuf is decoded in full, with the hex view of its bytes', async ({ page, request }) => {
  const pods = await (await request.get(`${simUrl()}/api/v1/namespaces/demo/pods`, { headers: { Accept: 'application/json' } })).json();
  const pod = pods.items[0];
  await page.goto(`./?group=&version=v1&resource=pods&namespace=demo&name=${pod.metadata.name}&as=protobuf`);
  await expect(page.getByTestId('response-content-type')).toHaveText('application/vnd.kubernetes.protobuf');
  await expect(page.getByTestId('protobuf-decoded')).toBeVisible();
  const text = page.getByTestId('document-text');
  await expect(text).toContainText('kind: Pod');
  await expect(text).toContainText(`uid: ${pod.metadata.uid}`);
  await page.getByRole('button', { name: 'Hex (raw bytes)' }).click();
  await expect(text).toContainText('00000000  6b 38 73 00');
});

test('a protobuf watch captured from the server decodes event by event in the decode tool', async ({ page, request }) => {
  const name = `pb-watch-${Date.now()}`;
  const list = await (await request.get(`${simUrl()}/api/v1/namespaces/demo/configmaps`, { headers: { Accept: 'application/json' } })).json();
  // Watch from the list's resourceVersion (only what happens next), as protobuf frames, for 2 s;
  // meanwhile a ConfigMap is created and deleted.
  const watch = request.get(
    `${simUrl()}/api/v1/namespaces/demo/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=2`,
    { headers: { Accept: 'application/vnd.kubernetes.protobuf;stream=watch' } },
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  const created = await request.post(`${simUrl()}/api/v1/namespaces/demo/configmaps`, {
    data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'demo' }, data: { greeting: 'from protobuf' } },
  });
  expect(created.status()).toBe(201);
  expect((await request.delete(`${simUrl()}/api/v1/namespaces/demo/configmaps/${name}`)).status()).toBe(200);
  const response = await watch;
  expect(response.headers()['content-type']).toBe('application/vnd.kubernetes.protobuf;stream=watch');
  const body = await response.body();

  await page.goto('./');
  await page.getByLabel('Body file').setInputFiles({ name: 'configmaps.pbstream', mimeType: 'application/octet-stream', buffer: body });
  await page.getByRole('combobox', { name: 'Content-Type' }).selectOption('application/vnd.kubernetes.protobuf;stream=watch');
  await page.getByRole('button', { name: 'Decode', exact: true }).click();
  await expect(page.getByTestId('decode-media-type')).toHaveText('Decoded as application/vnd.kubernetes.protobuf;stream=watch');
  await expect(page.getByTestId('protobuf-decoded')).toBeVisible();
  const text = page.getByTestId('document-text');
  await expect(text).toContainText('type: ADDED');
  await expect(text).toContainText('type: DELETED');
  await expect(text).toContainText('kind: ConfigMap');
  await expect(text).toContainText(`name: ${name}`);
  await expect(text).toContainText('greeting: from protobuf');
  await saveScreen(page, 'protobuf-watch-decoded');
});

test('a custom resource says why protobuf does not apply, with the fallback and without it', async ({ page }) => {
  await page.goto('./?group=example.com&version=v1&resource=widgets&as=protobuf');
  await expect(page.getByTestId('response-content-type')).toHaveText('application/json');
  const notice = page.getByTestId('protobuf-not-served');
  await expect(notice).toContainText('No protobuf for this type');
  await expect(notice).toContainText('Custom resources');
  await saveScreen(page, 'protobuf-custom-resource');

  await page.getByLabel('No JSON fallback').check();
  await expect(page.getByTestId('status-code')).toHaveText('406');
  await expect(notice).toContainText('406 Not Acceptable');
});

/** The list and watch requests of the collection at `path`, with their Accept, and the
 *  Content-Type each response came back with. */
function collectionRequests(page, path) {
  const seen = [];
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.pathname !== path) return;
    seen.push({
      watch: url.searchParams.get('watch') === 'true',
      accept: response.request().headers().accept,
      status: response.status(),
      contentType: response.headers()['content-type'],
    });
  });
  return seen;
}

const PROTOBUF_WATCH = 'application/vnd.kubernetes.protobuf;stream=watch';

test('pods watched live in protobuf: the watch asks for protobuf frames, and new and changed pods arrive', async ({ page, request }) => {
  const parts = partRequests(page);
  const exchanges = collectionRequests(page, '/api/v1/namespaces/demo/pods');
  await page.goto('./?group=&version=v1&resource=pods&namespace=demo&watch=1&as=protobuf');
  const live = page.getByTestId('live-view');
  await expect(page.getByTestId('live-state')).toHaveText(/^watching/);
  await expect(page.getByTestId('live-accept')).toHaveText(`${PROTOBUF_WATCH},application/json`);
  await expect(page.getByTestId('live-content-type')).toHaveText(PROTOBUF_WATCH);
  await expect(page.getByTestId('protobuf-not-served')).toBeHidden();
  // The part that decodes protobuf was fetched once, for the first protobuf body.
  expect(parts).toHaveLength(1);
  const watches = exchanges.filter((e) => e.watch);
  expect(watches.length).toBeGreaterThan(0);
  for (const watch of watches) {
    expect(watch.accept).toBe(`${PROTOBUF_WATCH},application/json`);
    expect(watch.contentType).toBe(PROTOBUF_WATCH);
  }
  // Every pod the server has is a row, read from protobuf frames.
  const pods = await (await request.get(`${simUrl()}/api/v1/namespaces/demo/pods`, { headers: { Accept: 'application/json' } })).json();
  for (const pod of pods.items) {
    await expect(live.getByTestId('grid-row').filter({ hasText: pod.metadata.name })).toHaveCount(1);
  }

  // A new pod arrives as a row.
  const name = `pb-live-${Date.now().toString(36)}`;
  const created = await request.post(`${simUrl()}/api/v1/namespaces/demo/pods`, {
    data: { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'pb-live' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } },
  });
  expect(created.status()).toBe(201);
  const row = live.getByTestId('grid-row').filter({ hasText: name });
  await expect(row).toHaveCount(1);
  // A change to it arrives as a MODIFIED event at the version the server gave the change.
  const patched = await request.patch(`${simUrl()}/api/v1/namespaces/demo/pods/${name}`, {
    headers: { 'Content-Type': 'application/merge-patch+json' },
    data: JSON.stringify({ metadata: { labels: { changed: 'by-protobuf-spec' } } }),
  });
  expect(patched.status()).toBe(200);
  const version = (await patched.json()).metadata.resourceVersion;
  const modified = page.getByTestId('timeline-entry').and(page.locator('[data-type=MODIFIED]')).filter({ hasText: `Pod demo/${name}` });
  await expect(modified.filter({ hasText: `rv ${version}` })).toHaveCount(1);
  await expect(page.getByTestId('live-problem')).toHaveCount(0);
  await saveScreen(page, 'protobuf-live-pods');

  // Deleted, it goes.
  expect((await request.delete(`${simUrl()}/api/v1/namespaces/demo/pods/${name}?gracePeriodSeconds=0`)).status()).toBe(200);
  await expect(row).toHaveCount(0, { timeout: 15_000 });
  expect(parts).toHaveLength(1);
});

test('a custom resource watched live in protobuf says why protobuf does not apply and is watched in JSON', async ({ page, request }) => {
  const exchanges = collectionRequests(page, '/apis/example.com/v1/namespaces/demo/widgets');
  const widget = (name) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'demo' }, spec: { size: 'small', replicas: 1, color: 'red' } });
  await page.goto('./?group=example.com&version=v1&resource=widgets&namespace=demo&watch=1&as=protobuf');
  const live = page.getByTestId('live-view');
  await expect(page.getByTestId('live-state')).toHaveText(/^watching/);
  const notice = page.getByTestId('protobuf-not-served');
  await expect(notice).toBeVisible();
  await expect(notice).toContainText('No protobuf for this type');
  await expect(notice).toContainText('Custom resources');
  // Protobuf was asked for, with the JSON fallback; JSON came, and the watch reads it.
  await expect(page.getByTestId('live-accept')).toHaveText(`${PROTOBUF_WATCH},application/json`);
  await expect(page.getByTestId('live-content-type')).toHaveText('application/json');
  const first = `pb-cr-${Date.now().toString(36)}`;
  expect((await request.post(`${simUrl()}/apis/example.com/v1/namespaces/demo/widgets`, { data: widget(first) })).status()).toBe(201);
  await expect(live.getByTestId('grid-row').filter({ hasText: first })).toHaveCount(1);
  await expect(page.getByTestId('live-problem')).toHaveCount(0);
  await saveScreen(page, 'protobuf-live-custom-resource');

  // Without the fallback the server answers 406; the watch goes on in JSON, saying why.
  exchanges.length = 0;
  await page.getByLabel('No JSON fallback').check();
  await expect(page).toHaveURL(/fallback=0/);
  await expect(page.getByTestId('live-state')).toHaveText(/^watching/);
  await expect(page.getByTestId('live-accept')).toHaveText('application/json');
  await expect(notice).toContainText('406 Not Acceptable');
  expect(exchanges[0]).toMatchObject({ accept: PROTOBUF_WATCH, status: 406 });
  const second = `pb-cr-${Date.now().toString(36)}-b`;
  expect((await request.post(`${simUrl()}/apis/example.com/v1/namespaces/demo/widgets`, { data: widget(second) })).status()).toBe(201);
  await expect(live.getByTestId('grid-row').filter({ hasText: second })).toHaveCount(1);
  await saveScreen(page, 'protobuf-live-custom-resource-406');
  for (const name of [first, second]) {
    await request.delete(`${simUrl()}/apis/example.com/v1/namespaces/demo/widgets/${name}`);
  }
});
