// The live collection: list then watch over a streamed fetch, rows changing without a reload,
// and the cache equal to the server's state after faults.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

const NS = 'demo';

async function serverNames(request) {
  const response = await request.get(`${simUrl()}/api/v1/namespaces/${NS}/configmaps`, { headers: { Accept: 'application/json' } });
  const list = await response.json();
  return list.items.map((i) => i.metadata.name).sort();
}

async function pageNames(page) {
  const names = await page.getByTestId('live-view').getByTestId('grid-row').locator('td:first-child').allTextContents();
  return names.sort();
}

function configMap(name) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { k: 'v' } };
}

/** The page's own watch requests of the configmaps in NS, in the order sent: each with its URL,
 * its Accept, and (once its headers came) the response. */
function watchLog(page) {
  const log = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.endsWith(`/namespaces/${NS}/configmaps`) && ['true', '1'].includes(url.searchParams.get('watch'))) {
      log.push({ request, url, accept: request.headers().accept, response: null });
    }
  });
  page.on('response', (response) => {
    const entry = log.find((e) => e.request === response.request());
    if (entry) entry.response = response;
  });
  return log;
}

test('rows follow creates and deletes without a reload, and survive a dropped watch', async ({ page, request }) => {
  // Live by default: no watch=1 needed.
  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}`);
  await expect(page.getByTestId('live-state')).toHaveText(/^watching/);
  await expect.poll(() => pageNames(page)).toEqual(await serverNames(request));

  const created = await request.post(`${simUrl()}/api/v1/namespaces/${NS}/configmaps`, { data: configMap('live-one') });
  expect(created.status()).toBe(201);
  await expect(page.getByTestId('live-view').getByTestId('grid-row').filter({ hasText: 'live-one' })).toHaveCount(1);
  await expect(page.getByTestId('timeline-entry').filter({ hasText: `ConfigMap ${NS}/live-one` }).first()).toHaveAttribute('data-type', 'ADDED');

  await request.post(`${simUrl()}/_sim/drop-watches`);
  await request.post(`${simUrl()}/api/v1/namespaces/${NS}/configmaps`, { data: configMap('live-two') });
  await request.delete(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/live-one`);
  await expect.poll(() => pageNames(page)).toEqual(await serverNames(request));
  await expect(page.getByTestId('live-state')).toHaveText(/^watching/);
  await saveScreen(page, 'live-configmaps');
  await request.delete(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/live-two`);
  await expect.poll(() => pageNames(page)).toEqual(await serverNames(request));
});

test('an expired history (410) relists and the cache equals the server again', async ({ page, request }) => {
  const watches = watchLog(page);
  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}&watch=1`);
  await expect(page.getByTestId('live-state')).toHaveText(/^watching/);
  await expect.poll(() => pageNames(page)).toEqual(await serverNames(request));
  // A change the page's watch does not see (another namespace), so that the compaction below
  // passes the resourceVersion the page would resume from; then the watch is cut.
  const unseen = await request.post(`${simUrl()}/api/v1/namespaces/shop/configmaps`, {
    data: { ...configMap('unseen-by-demo'), metadata: { name: 'unseen-by-demo', namespace: 'shop' } },
  });
  expect(unseen.status()).toBe(201);
  const compacted = await (await request.post(`${simUrl()}/_sim/compact`)).json();
  const before = watches.length;
  await request.post(`${simUrl()}/_sim/drop-watches`);
  await request.post(`${simUrl()}/api/v1/namespaces/${NS}/configmaps`, { data: configMap('after-compact') });
  await expect.poll(() => pageNames(page)).toEqual(await serverNames(request));

  // The page resumed from its last resourceVersion, older than the compaction: the server
  // answered with an in-stream ERROR event carrying a 410 Status (HTTP 200, as a real server
  // does), and the page said so.
  const after = watches.slice(before);
  const resumed = after[0];
  expect(resumed.url.searchParams.get('sendInitialEvents'), 'the first watch after the cut resumes').toBeNull();
  expect(Number(resumed.url.searchParams.get('resourceVersion'))).toBeLessThan(Number(compacted.compactedResourceVersion));
  expect(resumed.response.status()).toBe(200);
  // Chromium does not always keep a streamed body (getResponseBody can answer "No data found"):
  // the same request sent again by the test gets what the page got, the history staying compacted.
  const again = await request.get(`${simUrl()}${resumed.url.pathname}${resumed.url.search}`, { headers: { Accept: resumed.accept }, timeout: 10000 });
  expect(again.status()).toBe(200);
  const events = (await again.text()).trim().split('\n').map((line) => JSON.parse(line));
  expect(events.map((e) => [e.type, e.object.code, e.object.reason])).toEqual([['ERROR', 410, 'Expired']]);
  await expect(page.getByTestId('live-problem')).toContainText("the watch's resource version expired (410 Gone)");
  // Then it listed again: a streaming list (sendInitialEvents) from no resourceVersion.
  const relist = after[1];
  expect(relist, 'a request after the 410').toBeTruthy();
  expect(relist.url.searchParams.get('sendInitialEvents')).toBe('true');
  expect(relist.url.searchParams.get('resourceVersion')).toBeNull();
  await saveScreen(page, 'live-relisted-after-410');
  await request.delete(`${simUrl()}/api/v1/namespaces/shop/configmaps/unseen-by-demo`);
  await request.delete(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/after-compact`);
  await expect.poll(() => pageNames(page)).toEqual(await serverNames(request));
});

test('a 429 with Retry-After is retried and shown, then the view catches up', async ({ page, request }) => {
  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}&watch=1`);
  await expect(page.getByTestId('live-state')).toHaveText(/^watching/);
  await request.post(`${simUrl()}/_sim/fail?status=429&count=2&retryAfter=1`);
  await request.post(`${simUrl()}/_sim/drop-watches`);
  await expect(page.getByTestId('live-problem')).toContainText('429');
  await request.post(`${simUrl()}/api/v1/namespaces/${NS}/configmaps`, { data: configMap('after-429') });
  await expect.poll(() => pageNames(page), { timeout: 30_000 }).toEqual(await serverNames(request));
  await request.delete(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/after-429`);
  await expect.poll(() => pageNames(page)).toEqual(await serverNames(request));
});

test('every version seen of a watched object is kept, and any two can be diffed', async ({ page, request }) => {
  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}&watch=1`);
  await expect(page.getByTestId('live-state')).toHaveText(/^watching/);
  await request.post(`${simUrl()}/api/v1/namespaces/${NS}/configmaps`, { data: configMap('history') });
  const patched = await request.patch(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/history`, {
    headers: { 'Content-Type': 'application/merge-patch+json' },
    data: JSON.stringify({ data: { k: 'changed', extra: 'yes' } }),
  });
  expect(patched.status()).toBe(200);
  const history = page.getByRole('region', { name: 'Object history' });
  await expect(history.getByLabel('History of object').locator('option', { hasText: `ConfigMap ${NS}/history` })).toHaveCount(1);
  await history.getByLabel('History of object').selectOption(`ConfigMap ${NS}/history`);
  await expect(history.getByTestId('history-changes')).toContainText('data.k Changed: "v" → "changed"');
  await expect(history.getByTestId('history-changes')).toContainText('data.extra Added');
  await expect(history.getByTestId('history-diff')).toContainText('+  k: changed');
  await saveScreen(page, 'object-history');
  await request.delete(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/history`);
});

for (const [fault, setup] of [
  ['a 500 answer', (request) => request.post(`${simUrl()}/_sim/fail?status=500&count=2`)],
  ['a truncated body', (request) => request.post(`${simUrl()}/_sim/truncate-next`)],
]) {
  test(`after ${fault} the cache equals a fresh list from the server`, async ({ page, request }) => {
    await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}&watch=1`);
    await expect(page.getByTestId('live-state')).toHaveText(/^watching/);
    // The fault hits the next requests of anyone: make ours first, so the page meets it.
    await request.post(`${simUrl()}/api/v1/namespaces/${NS}/configmaps`, { data: configMap('after-fault') });
    const expected = await serverNames(request);
    await setup(request);
    await request.post(`${simUrl()}/_sim/drop-watches`);
    await expect(page.getByTestId('live-problem')).toBeVisible({ timeout: 30_000 });
    await expect.poll(() => pageNames(page), { timeout: 30_000 }).toEqual(expected);
    await expect(page.getByTestId('live-state')).toHaveText(/^watching/, { timeout: 30_000 });
    await request.delete(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/after-fault`);
    await expect.poll(() => pageNames(page)).toEqual(await serverNames(request));
  });
}

test('with CBOR picked, the watch streams a CBOR sequence', async ({ page, request }) => {
  const watches = watchLog(page);
  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}&watch=1&as=cbor`);
  await expect(page.getByTestId('live-state')).toHaveText(/^watching/);
  await expect.poll(() => pageNames(page)).toEqual(await serverNames(request));
  // Asked for in CBOR (as client-go asks: application/cbor), answered as a CBOR sequence.
  expect(watches.length).toBeGreaterThan(0);
  for (const watch of watches) {
    expect(watch.accept).toBe('application/cbor');
    expect(watch.response.headers()['content-type']).toBe('application/cbor-seq');
  }
  await request.post(`${simUrl()}/api/v1/namespaces/${NS}/configmaps`, { data: configMap('cbor-live') });
  await expect(page.getByTestId('live-view').getByTestId('grid-row').filter({ hasText: 'cbor-live' })).toHaveCount(1);
  await request.delete(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/cbor-live`);
  await expect.poll(() => pageNames(page)).toEqual(await serverNames(request));
});

test("a timeline entry opens the object it is about; a deleted object's entry is plain text", async ({ page, request }) => {
  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}&watch=1`);
  await expect(page.getByTestId('live-state')).toHaveText(/^watching/);
  await request.post(`${simUrl()}/api/v1/namespaces/${NS}/configmaps`, { data: configMap('timeline-link') });
  await request.post(`${simUrl()}/api/v1/namespaces/${NS}/configmaps`, { data: configMap('timeline-gone') });
  await request.delete(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/timeline-gone`);
  const deleted = page.getByTestId('timeline-entry').filter({ hasText: `ConfigMap ${NS}/timeline-gone` }).and(page.locator('[data-type=DELETED]'));
  await expect(deleted).toHaveCount(1);
  await expect(deleted.getByTestId('timeline-link')).toHaveCount(0);
  const added = page.getByTestId('timeline-entry').filter({ hasText: `ConfigMap ${NS}/timeline-link` }).first();
  const link = added.getByTestId('timeline-link');
  expect(await link.getAttribute('href')).toContain('name=timeline-link');
  await link.click();
  await expect(page.getByTestId('object-title')).toHaveText('ConfigMap timeline-link');
  await request.delete(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/timeline-link`);
});
