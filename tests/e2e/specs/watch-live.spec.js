// Live Table watches (as `kubectl get -w`): the server's columns, rows following a Deployment's
// pods as it is scaled and deleted, changed rows highlighted; the watch paused while the tab is
// hidden; the page's stream budget, and ordinary requests never starved by open watches.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

const NS = 'demo';
const WATCH_BUDGET = 3;

async function serverPods(request, prefix) {
  const response = await request.get(`${simUrl()}/api/v1/namespaces/${NS}/pods`, { headers: { Accept: 'application/json' } });
  const list = await response.json();
  return list.items.map((i) => i.metadata.name).filter((n) => n.startsWith(prefix)).sort();
}

async function pagePods(page, prefix) {
  const names = await page.getByTestId('live-view').getByTestId('grid-row').locator('td:first-child').allTextContents();
  return names.filter((n) => n.startsWith(prefix)).sort();
}

function deployment(name, replicas) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
    },
  };
}

async function scale(request, name, replicas) {
  const response = await request.patch(`${simUrl()}/apis/apps/v1/namespaces/${NS}/deployments/${name}/scale`, {
    headers: { 'Content-Type': 'application/merge-patch+json' },
    data: JSON.stringify({ spec: { replicas } }),
  });
  expect(response.status()).toBe(200);
}

/** Counts the watch requests open at once, from the page's own network events. */
function trackWatches(page) {
  const track = { open: new Set(), peak: 0, urls: [] };
  const isWatch = (r) => /[?&]watch=(true|1)/.test(r.url());
  page.on('request', (r) => {
    if (!isWatch(r)) return;
    track.open.add(r);
    track.urls.push({ url: r.url(), accept: r.headers().accept });
    track.peak = Math.max(track.peak, track.open.size);
  });
  const end = (r) => track.open.delete(r);
  page.on('requestfinished', end);
  page.on('requestfailed', end);
  return track;
}

test('a collection opens live; the setting turns that off and is remembered; a link that says watch=0 or watch=1 wins', async ({ page }) => {
  const track = trackWatches(page);
  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}`);
  await expect(page.getByTestId('live-state')).toContainText('watching');
  await expect(page.getByTestId('mode-live')).toHaveAttribute('aria-pressed', 'true');
  // A Table watch (as kubectl get -w), the grid's representation.
  expect(track.urls.at(-1).accept).toContain('as=Table');
  // A document representation shows a page's text, which a watch cannot keep: it is read by pages.
  await page.getByRole('group', { name: 'Representation' }).getByRole('button', { name: 'YAML', exact: true }).click();
  await expect(page.getByTestId('document-text')).toContainText('kind: ConfigMapList');
  await expect(page.getByTestId('mode-pages')).toHaveAttribute('aria-pressed', 'true');
  await page.getByRole('group', { name: 'Representation' }).getByRole('button', { name: 'Table', exact: true }).click();
  await expect(page.getByTestId('live-state')).toContainText('watching');

  // Turned off: collections open a page at a time, also after a reload.
  await page.getByLabel('Open collections live').uncheck();
  await expect(page.getByTestId('response-kind')).toHaveText('Table');
  await expect(page.getByTestId('live-view')).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('response-kind')).toHaveText('Table');
  await expect(page.getByLabel('Open collections live')).not.toBeChecked();
  await saveScreen(page, 'live-setting-off');
  // A link that asks for live still opens live.
  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}&watch=1`);
  await expect(page.getByTestId('live-state')).toContainText('watching');
  await page.getByLabel('Open collections live').check();
  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}&watch=0`);
  await expect(page.getByTestId('response-kind')).toHaveText('Table');
  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}`);
  await expect(page.getByTestId('live-state')).toContainText('watching');
  await saveScreen(page, 'live-by-default');
});

test('a Table watch shows the server columns and follows a Deployment scaled up, down and deleted', async ({ page, request }) => {
  const name = 'live-web';
  const track = trackWatches(page);
  const created = await request.post(`${simUrl()}/apis/apps/v1/namespaces/${NS}/deployments`, { data: deployment(name, 2) });
  expect(created.status()).toBe(201);
  await page.goto(`./?group=&version=v1&resource=pods&namespace=${NS}&watch=1`);
  await expect(page.getByTestId('live-state')).toContainText('watching');
  const live = page.getByTestId('live-view');
  // The server's pod columns, not the client's fallback ones.
  for (const column of ['Name', 'Ready', 'Status', 'Restarts', 'Age']) {
    await expect(live.getByRole('columnheader', { name: column, exact: true })).toBeVisible();
  }
  const tableWatch = track.urls.find((u) => u.url.includes('includeObject=Object'));
  expect(tableWatch, 'the watch asks for Tables with whole objects').toBeTruthy();
  expect(tableWatch.accept).toContain('as=Table;g=meta.k8s.io;v=v1');
  await expect.poll(() => pagePods(page, name)).toEqual(await serverPods(request, name));
  expect((await pagePods(page, name)).length).toBe(2);
  // The simulated kubelet runs each pod: the Status cell changes in place, without a reload.
  await expect(live.getByTestId('grid-row').filter({ hasText: name }).filter({ hasText: 'Running' })).toHaveCount(2, { timeout: 30_000 });

  await scale(request, name, 4);
  await expect.poll(async () => (await pagePods(page, name)).length).toBe(4);
  // Rows of pods that just appeared or changed flash (a new element per resourceVersion).
  await expect(live.locator('tr[data-changed]').filter({ hasText: name }).first()).toBeVisible();
  await saveScreen(page, 'live-table-scaled');
  await expect.poll(() => pagePods(page, name)).toEqual(await serverPods(request, name));

  await scale(request, name, 1);
  await expect.poll(async () => (await pagePods(page, name)).length, { timeout: 30_000 }).toBe(1);
  await expect.poll(() => pagePods(page, name)).toEqual(await serverPods(request, name));

  const deleted = await request.delete(`${simUrl()}/apis/apps/v1/namespaces/${NS}/deployments/${name}`);
  expect(deleted.status()).toBe(200);
  await expect.poll(() => pagePods(page, name), { timeout: 30_000 }).toEqual([]);
  expect(await serverPods(request, name)).toEqual([]);
  // The whole view equals a fresh list: names and resourceVersions.
  const fresh = await (await request.get(`${simUrl()}/api/v1/namespaces/${NS}/pods`, { headers: { Accept: 'application/json' } })).json();
  const expected = fresh.items.map((i) => `${i.metadata.name}@${i.metadata.resourceVersion}`).sort();
  await expect
    .poll(async () =>
      (await live.getByTestId('grid-row').evaluateAll((rows) => rows.map((r) => `${r.cells[0].textContent}@${r.dataset.rv}`))).sort(),
    )
    .toEqual(expected);
  expect(track.peak).toBeLessThanOrEqual(WATCH_BUDGET);
});

test('rows listed at first are not highlighted; a row added later is, for a while', async ({ page, request }) => {
  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}&watch=1`);
  await expect(page.getByTestId('live-state')).toContainText('watching');
  const live = page.getByTestId('live-view');
  await expect(live.getByTestId('grid-row').first()).toBeVisible();
  await expect(live.locator('tr[data-changed]')).toHaveCount(0);
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'flash-one', namespace: NS }, data: { a: '1' } };
  expect((await request.post(`${simUrl()}/api/v1/namespaces/${NS}/configmaps`, { data: cm })).status()).toBe(201);
  const row = live.getByTestId('grid-row').filter({ hasText: 'flash-one' });
  await expect(row).toHaveAttribute('data-changed', 'true');
  await saveScreen(page, 'live-row-highlighted');
  // The highlight ends; the row stays.
  await expect(live.locator('tr[data-changed]')).toHaveCount(0, { timeout: 10_000 });
  await expect(row).toHaveCount(1);
  await request.delete(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/flash-one`);
  await expect(row).toHaveCount(0);
});

async function setHidden(page, hidden) {
  await page.evaluate((hidden) => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

async function simStreams(request) {
  return (await (await request.get(`${simUrl()}/_sim/state`)).json()).openStreams;
}

test('a hidden tab closes its watch, and showing it again resumes from the resourceVersion without a relist', async ({ page, request }) => {
  // Collections open live, so earlier tests' pages left watches behind; behind kubectl proxy
  // kube-sim sees such a stream end only at its next write. Cut them first: this test counts the
  // streams kube-sim holds.
  await request.post(`${simUrl()}/_sim/drop-watches`);
  await expect.poll(() => simStreams(request)).toBe(0);
  const track = trackWatches(page);
  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}&watch=1`);
  await expect(page.getByTestId('live-state')).toContainText('watching');
  await expect.poll(() => simStreams(request)).toBeGreaterThan(0);
  // The last thing the page sees before it hides: a change of its own collection, whose row
  // carries the change's resourceVersion.
  const last = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before-hidden', namespace: NS }, data: { a: '1' } };
  const made = await request.post(`${simUrl()}/api/v1/namespaces/${NS}/configmaps`, { data: last });
  expect(made.status()).toBe(201);
  const madeVersion = (await made.json()).metadata.resourceVersion;
  const live = page.getByTestId('live-view');
  await expect(live.getByTestId('grid-row').filter({ hasText: 'before-hidden' })).toHaveAttribute('data-rv', madeVersion);
  await setHidden(page, true);
  await expect(page.getByTestId('live-state')).toContainText('paused');
  await expect.poll(() => track.open.size).toBe(0);
  await expect.poll(() => simStreams(request)).toBe(0);
  // The resourceVersion the page holds: that change's, or a later BOOKMARK's (kube-sim sends one
  // every 15 s with its current resourceVersion).
  const seen = await page.getByTestId('live-rv').textContent();
  expect(Number(seen)).toBeGreaterThanOrEqual(Number(madeVersion));
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'while-hidden', namespace: NS }, data: { a: '1' } };
  expect((await request.post(`${simUrl()}/api/v1/namespaces/${NS}/configmaps`, { data: cm })).status()).toBe(201);
  const before = track.urls.length;
  await setHidden(page, false);
  await expect(page.getByTestId('live-state')).toContainText('watching');
  await expect(page.getByTestId('live-view').getByTestId('grid-row').filter({ hasText: 'while-hidden' })).toHaveCount(1);
  const resumed = track.urls.slice(before).map((u) => u.url);
  expect(resumed.length).toBeGreaterThan(0);
  expect(new URL(resumed[0]).searchParams.get('resourceVersion'), 'resumed from the last resourceVersion seen').toBe(seen);
  expect(resumed.every((u) => !u.includes('sendInitialEvents')), 'resumed, not listed again').toBe(true);
  await request.delete(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/while-hidden`);
  await request.delete(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/before-hidden`);
});

test('ordinary requests complete while a watch is open, and the page never holds more watches than its budget', async ({ page }) => {
  const track = trackWatches(page);
  const gets = new Map();
  page.on('request', (r) => {
    if (r.url().includes('/api') && !/[?&]watch=/.test(r.url())) gets.set(r, 'pending');
  });
  page.on('requestfinished', (r) => gets.has(r) && gets.set(r, 'finished'));
  page.on('requestfailed', (r) => gets.has(r) && gets.set(r, 'failed'));
  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}&watch=1`);
  await expect(page.getByTestId('live-state')).toContainText('watching');
  // Pages and live again, quickly, in the same page: each switch aborts a watch and opens one.
  for (let i = 0; i < 4; i++) {
    await page.getByTestId('mode-pages').click();
    await page.getByTestId('mode-live').click();
  }
  await expect(page.getByTestId('live-state')).toContainText('watching');
  await expect(page.getByTestId('live-streams')).toHaveText(`1 of ${WATCH_BUDGET} open, 0 waiting`);
  // With the watch open, a burst of ordinary requests from the same page (the same connections)
  // all complete, and the watch is still running afterwards.
  const statuses = await page.evaluate(() =>
    Promise.all(Array.from({ length: 12 }, (_, i) => fetch(`/api/v1/namespaces/demo/configmaps?limit=${i + 1}`).then((r) => r.status))),
  );
  expect(statuses).toEqual(Array(12).fill(200));
  await expect(page.getByTestId('live-state')).toContainText('watching');
  // Opening an object from the live view is an ordinary GET too.
  await page.getByTestId('live-view').getByTestId('grid-row').first().click();
  await expect(page.getByTestId('live-view')).toHaveCount(0);
  await expect(page.getByTestId('object-rv')).not.toBeEmpty();
  await saveScreen(page, 'ordinary-requests-after-watches');
  const pending = [...gets.entries()].filter(([, state]) => state === 'pending').map(([r]) => r.url());
  expect(pending, 'no ordinary request left waiting').toEqual([]);
  expect(track.peak).toBeGreaterThan(0);
  expect(track.peak).toBeLessThanOrEqual(WATCH_BUDGET);
});

test('a live Table across all namespaces starts with a Namespace column, as kubectl get -A -w', async ({ page, request }) => {
  // The demo CronJob starts and removes pods every minute: compare with the server's list as it
  // is at each poll, not with one read before the page opened.
  const onServer = async () => {
    const response = await request.get(`${simUrl()}/api/v1/pods`, { headers: { Accept: 'application/json' } });
    return (await response.json()).items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`).sort();
  };
  await page.goto('./?group=&version=v1&resource=pods&watch=1');
  await expect(page.getByTestId('live-state')).toContainText('watching');
  const live = page.getByTestId('live-view');
  await expect(live.getByRole('columnheader').first()).toContainText('Namespace');
  await expect(live.getByRole('columnheader', { name: 'Name', exact: true })).toBeVisible();
  const shown = () => live.getByTestId('grid-row').evaluateAll((trs) => trs
    .map((tr) => [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent.trim()).join('/')).sort());
  await expect.poll(async () => {
    const [expected, got] = [await onServer(), await shown()];
    return got.join('\n') === expected.join('\n') ? 'equal to the server' : { expected, got };
  }).toBe('equal to the server');
  await saveScreen(page, 'live-all-namespaces');
});

// Opening a collection asks for one watch and keeps it: the view state's first write (equal values,
// as the page settles) once made the live view start again, abandoning the watch it had just
// opened (seen as a second request and an aborted one in every release build, for JSON, CBOR and
// Table watches alike); the paged view's first page was likewise read twice.
for (const [what, query, pattern] of [
  ['a Table watch across namespaces', '?group=&version=v1&resource=pods', /\/api\/v1\/pods\?.*watch=true/],
  ['a JSON watch of one namespace', '?group=apps&version=v1&resource=deployments&namespace=demo&watch=1&as=json', /\/apis\/apps\/v1\/namespaces\/demo\/deployments\?.*watch=true/],
  ['a CBOR watch', '?group=&version=v1&resource=configmaps&namespace=demo&watch=1&as=cbor', /\/api\/v1\/namespaces\/demo\/configmaps\?.*watch=true/],
  // The protobuf decoder is fetched between the headers and the first frame: still one request.
  ['a protobuf watch', '?group=&version=v1&resource=pods&namespace=demo&watch=1&as=protobuf', /\/api\/v1\/namespaces\/demo\/pods\?.*watch=true/],
  ['a page read by pages', '?group=&version=v1&resource=pods&namespace=demo&watch=0', /\/api\/v1\/namespaces\/demo\/pods\?(?!.*watch=true)/],
]) {
  test(`opening ${what} sends its request once`, async ({ page }) => {
    const sent = [];
    const aborted = [];
    page.on('request', (r) => { if (pattern.test(r.url())) sent.push(r.url()); });
    page.on('requestfailed', (r) => { if (pattern.test(r.url())) aborted.push(`${r.url()} ${r.failure().errorText}`); });
    await page.goto(`./${query}`);
    if (query.includes('watch=0')) await expect(page.getByTestId('response-status')).toHaveText('200 OK');
    else await expect(page.getByTestId('live-state')).toContainText('watching');
    // Long enough for the access answers and the namespaces list to arrive and be applied.
    await page.waitForTimeout(1_500);
    expect(aborted).toEqual([]);
    expect(sent).toHaveLength(1);
  });
}

test('a live view says it is still listing until its first list is complete, and only then that a list is empty', async ({ page }) => {
  // The watch that lists (sendInitialEvents) is held back for a while.
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route(/\/api\/v1\/namespaces\/demo\/configmaps\?.*watch=true/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto('./?group=&version=v1&resource=configmaps&namespace=demo');
  const live = page.getByTestId('live-view');
  await expect(live.getByTestId('empty-state')).toHaveText('Listing: no objects have arrived yet.');
  release();
  await expect(live.getByTestId('grid-row').first()).toBeVisible();
  await expect(live.getByTestId('empty-state')).toHaveCount(0);
  await page.goto('./?group=&version=v1&resource=configmaps&namespace=no-such-namespace');
  await expect(page.getByTestId('live-state')).toContainText('watching');
  await expect(page.getByTestId('live-view').getByTestId('empty-state')).toHaveText(/^The server returned an empty list/);
});

test('an Age in a live table keeps counting after its row last changed, as the server counts it', async ({ page, request }) => {
  const name = `age-${Date.now()}`;
  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${NS}&watch=1`);
  await expect(page.getByTestId('live-state')).toContainText('watching');
  const live = page.getByTestId('live-view');
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { a: '1' } };
  expect((await request.post(`${simUrl()}/api/v1/namespaces/${NS}/configmaps`, { data: cm })).status()).toBe(201);
  const row = live.getByTestId('grid-row').filter({ hasText: name });
  await expect(row).toHaveCount(1);
  const headers = await live.locator('th').allTextContents();
  const ageColumn = headers.findIndex((h) => h.trim() === 'Age');
  expect(ageColumn).toBeGreaterThanOrEqual(0);
  const table = 'application/json;as=Table;v=v1;g=meta.k8s.io';
  const serverAge = async () => {
    const answer = await (await request.get(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/${name}`, { headers: { Accept: table } })).json();
    const column = answer.columnDefinitions.findIndex((c) => c.name === 'Age');
    return answer.rows[0].cells[column];
  };
  // The row's one event was its ADDED, at 0s. Seconds later the page says what the server says
  // then (compared at each poll: both count on).
  await page.waitForTimeout(5_000);
  await expect
    .poll(async () => {
      const [shown, server] = [(await row.locator('td').nth(ageColumn).textContent()).trim(), await serverAge()];
      return shown === server && parseInt(shown, 10) >= 5 ? 'equal' : `page ${shown}, server ${server}`;
    })
    .toBe('equal');
  await request.delete(`${simUrl()}/api/v1/namespaces/${NS}/configmaps/${name}`);
});
