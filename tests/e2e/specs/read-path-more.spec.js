// More of the read path: the resourceVersion controls, 406 without a fallback, Retry-After,
// owner links, subresources (a pod's log), and discovery in the wire inspector. Collections open
// live; the specs about a page's request and answer read them a page at a time (watch=0).
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

test('resourceVersion controls refuse invalid combinations before sending, quoting the rule', async ({ page }) => {
  await page.goto('./?group=&version=v1&resource=pods&namespace=demo&watch=0');
  await expect(page.getByTestId('response-status')).toHaveText('200 OK');
  const sent = [];
  page.on('request', (r) => { if (r.url().includes('resourceVersionMatch')) sent.push(r.url()); });
  await page.locator('summary', { hasText: 'resourceVersion' }).click();
  await page.getByLabel('resourceVersionMatch').selectOption('Exact');
  await page.getByRole('button', { name: 'Apply', exact: true }).click();
  await expect(page.getByTestId('version-problem')).toContainText(
    'setting the resourceVersionMatch parameter without setting resourceVersion is not valid');
  expect(sent).toEqual([]);
  await saveScreen(page, 'resource-version-problem');

  await page.getByLabel('resourceVersion', { exact: true }).fill('1');
  await page.getByLabel('resourceVersionMatch').selectOption('NotOlderThan');
  await expect(page.getByTestId('version-semantics')).toHaveText('The server reads this as: Not older than');
  await page.getByRole('button', { name: 'Apply', exact: true }).click();
  await expect(page).toHaveURL(/resourceVersion=1&resourceVersionMatch=NotOlderThan/);
  await expect(page.getByTestId('response-status')).toHaveText('200 OK');
  await expect(page.getByTestId('version-problem')).toHaveCount(0);
  expect(sent.length).toBeGreaterThan(0);
});

// A custom resource has no protobuf form: with the fallback JSON comes back; without it the 406
// Status is itself protobuf (as the real server answers, real-apiserver 43b), which the explorer
// reads as a Status.
test('without the JSON fallback, a protobuf request the server cannot serve is 406', async ({ page }) => {
  await page.goto('./?group=example.com&version=v1&resource=widgets&as=protobuf');
  await expect(page.getByTestId('response-content-type')).toHaveText('application/json');
  await page.getByLabel('No JSON fallback').check();
  await expect(page).toHaveURL(/fallback=0/);
  await expect(page.getByTestId('status-code')).toHaveText('406');
  await expect(page.getByTestId('status-reason')).toHaveText('NotAcceptable');
  await expect(page.getByTestId('response-content-type')).toHaveText('application/vnd.kubernetes.protobuf');
  await saveScreen(page, 'protobuf-406');
});

test('a 429 with Retry-After counts down visibly, then the list comes', async ({ page, request }) => {
  await page.goto('./?group=&version=v1&resource=configmaps&watch=0');
  await expect(page.getByTestId('response-status')).toHaveText('200 OK');
  const fail = await request.post(`${simUrl()}/_sim/fail?status=429&count=1&retryAfter=3`);
  expect(fail.ok()).toBeTruthy();
  await page.getByLabel('Page size').selectOption('50');
  const countdown = page.getByTestId('retry-countdown');
  await expect(countdown).toContainText('The server asked to wait 3 s (Retry-After): retrying in');
  await expect(page.getByTestId('status-code')).toHaveText('429');
  await saveScreen(page, 'retry-after-countdown');
  await expect(page.getByTestId('response-status')).toHaveText('200 OK', { timeout: 10_000 });
  await expect(countdown).toHaveCount(0);
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
});

test('owner references link to their owners, and a pod\'s log is shown as text', async ({ page, request }) => {
  const pods = await (await request.get(`${simUrl()}/api/v1/namespaces/demo/pods`, { headers: { Accept: 'application/json' } })).json();
  const pod = pods.items.find((p) => (p.metadata.ownerReferences || []).length > 0 && p.status.phase === 'Running');
  expect(pod).toBeTruthy();
  const owner = pod.metadata.ownerReferences[0];
  await page.goto(`./?group=&version=v1&resource=pods&namespace=demo&name=${pod.metadata.name}`);
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${pod.metadata.name}`);

  const subresources = page.getByRole('region', { name: 'Subresources' });
  await subresources.getByRole('button', { name: 'log', exact: true }).click();
  const log = page.getByTestId('log-text');
  await expect(log).not.toBeEmpty();
  await expect(log).not.toHaveText('(the log is empty)');
  await saveScreen(page, 'pod-log');
  await subresources.getByRole('button', { name: 'status', exact: true }).click();
  await expect(subresources.getByTestId('document-text')).toContainText('phase: Running');

  const link = page.getByTestId('owner-link');
  await expect(link.first()).toContainText(`${owner.kind} ${owner.name}`);
  await link.first().click();
  await expect(page.getByTestId('object-title')).toHaveText(`${owner.kind} ${owner.name}`);
  await expect(page).toHaveURL(new RegExp(`name=${owner.name}`));
  await page.goBack();
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${pod.metadata.name}`);
});

test('discovery\'s own requests are in the wire inspector', async ({ page }) => {
  await page.goto('./');
  await expect(page.getByTestId('cluster-version')).not.toHaveText('connecting…');
  await page.getByRole('button', { name: 'Wire inspector' }).click();
  const urls = page.getByRole('complementary', { name: 'Wire inspector' }).locator('.inspector__url');
  await expect(urls.filter({ hasText: /^\/version$/ })).toHaveCount(1);
  await expect(urls.filter({ hasText: /^\/api$/ })).toHaveCount(1);
  await expect(urls.filter({ hasText: /^\/apis$/ })).toHaveCount(1);
  await saveScreen(page, 'inspector-discovery');
});

test('an object\'s YAML is highlighted, numbered and folds block by block', async ({ page }) => {
  await page.goto('./?group=apps&version=v1&resource=deployments&namespace=demo');
  await page.getByTestId('grid-row').first().click();
  await expect(page.getByTestId('object-title')).toContainText('Deployment ');
  const doc = page.getByTestId('document-text').first();
  await expect(doc).toContainText('creationTimestamp');
  await expect(doc.locator('.tok--key', { hasText: /^apiVersion$/ })).toHaveCount(1);
  await expect(doc.locator('.code__line').first()).toHaveAttribute('data-line', '1');
  const fold = doc.locator('.code__line', { hasText: /^metadata:\s*$/ }).getByRole('button');
  await expect(fold).toHaveAttribute('aria-expanded', 'true');
  await fold.click();
  await expect(doc).not.toContainText('creationTimestamp');
  await expect(doc.locator('.code__folded')).toContainText('lines');
  await expect(doc).toContainText('spec:');
  await saveScreen(page, 'object-yaml-folded');
  const unfold = doc.locator('.code__line', { hasText: /^metadata: … \d+ lines/ }).getByRole('button');
  await expect(unfold).toHaveAttribute('aria-expanded', 'false');
  await unfold.click();
  await expect(doc).toContainText('creationTimestamp');
  await page.getByRole('group', { name: 'Text format' }).getByRole('button', { name: 'JSON' }).click();
  await expect(doc.locator('.tok--key', { hasText: /^"apiVersion"$/ })).toHaveCount(1);
  await saveScreen(page, 'object-json-highlighted');
});

test('an empty list says so', async ({ page }) => {
  await page.goto('./?group=&version=v1&resource=pods&labelSelector=app%3Dno-such-app&watch=0');
  await expect(page.getByTestId('response-status')).toHaveText('200 OK');
  await expect(page.getByTestId('empty-state')).toContainText('empty list');
  await expect(page.getByTestId('row-count')).toHaveText('0 rows');
});

test('a CBOR body shows its diagnostic notation: the self-described tag and byte-string keys', async ({ page }) => {
  await page.goto('./?group=&version=v1&resource=configmaps&namespace=demo&as=cbor');
  await expect(page.getByTestId('response-content-type')).toHaveText('application/cbor');
  await page.getByRole('group', { name: 'Text format' }).getByRole('button', { name: 'CBOR diagnostic' }).click();
  const doc = page.getByTestId('document-text');
  await expect(doc).toContainText('55799({');
  await expect(doc).toContainText("h'6b696e64' /kind/: h'436f6e6669674d61704c697374' /ConfigMapList/");
  await saveScreen(page, 'cbor-diagnostic');
});

test('load all joins the pages of a JSON list into one list, as kubectl get -o json does', async ({ page, request }) => {
  const all = await (await request.get(`${simUrl()}/api/v1/configmaps`, { headers: { Accept: 'application/json' } })).json();
  expect(all.items.length).toBeGreaterThan(2);
  await page.goto('./?group=&version=v1&resource=configmaps&as=json&limit=50');
  await page.getByLabel('Page size').selectOption('50');
  await page.goto('./?group=&version=v1&resource=configmaps&as=json&limit=2');
  await expect(page.getByTestId('response-kind')).toHaveText('ConfigMapList');
  await page.getByRole('group', { name: 'Text format' }).getByRole('button', { name: 'JSON' }).click();
  await page.getByRole('button', { name: 'Load all pages' }).click();
  await expect(page.getByTestId('load-all-progress')).toHaveText(`All ${all.items.length} loaded`);
  const doc = page.getByTestId('document-text');
  for (const item of all.items) await expect(doc).toContainText(`"name": "${item.metadata.name}"`);
  await expect(doc).not.toContainText('"continue"');
  await saveScreen(page, 'load-all-json');
});

test('a Table asks for columns only (includeObject=None); across namespaces the rows get their namespaces from a metadata-only list of the same page', async ({ page }) => {
  const lists = [];
  page.on('request', (r) => { if (r.url().includes('/pods?')) lists.push({ url: r.url(), accept: r.headers().accept }); });
  await page.goto('./?group=&version=v1&resource=pods&namespace=demo&watch=0');
  await expect(page.getByTestId('response-kind')).toHaveText('Table');
  expect(lists.at(-1).url).toContain('includeObject=None');
  const first = page.getByTestId('grid-row').first();
  const name = (await first.locator('td').first().textContent()).trim();
  await first.click();
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${name}`);
  await expect(page).toHaveURL(/namespace=demo/);

  // All namespaces: the columns come first, then the same page as PartialObjectMetadataList at
  // the Table's resourceVersion (Exact), which gives the Namespace column (as kubectl get -A).
  lists.length = 0;
  await page.goto('./?group=&version=v1&resource=pods&watch=0');
  await expect(page.getByTestId('response-kind')).toHaveText('Table');
  await expect(page.getByTestId('rows-metadata')).toHaveText('Namespaces read from a metadata-only list of this page.');
  expect(lists[0].url).toContain('includeObject=None');
  const rv = (await page.getByTestId('snapshot-rv').textContent()).trim();
  expect(lists[1].url).toContain(`resourceVersion=${rv}`);
  expect(lists[1].url).toContain('resourceVersionMatch=Exact');
  expect(lists[1].accept).toContain('as=PartialObjectMetadataList');
  await expect(page.getByRole('columnheader').first()).toContainText('Namespace');
  const rows = page.getByTestId('grid-row');
  const namespaces = await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelector('td').textContent.trim()));
  expect(namespaces.length).toBeGreaterThan(1);
  expect(namespaces.every((ns) => ns.length > 0)).toBe(true);
  expect(new Set(namespaces).size).toBeGreaterThan(1);
  await saveScreen(page, 'pods-all-namespaces');
  // A row in another namespace than the first opens there.
  const other = namespaces.findIndex((ns) => ns !== namespaces[0]);
  const row = rows.nth(other);
  const otherName = (await row.locator('td').nth(1).textContent()).trim();
  await row.click();
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${otherName}`);
  await expect(page).toHaveURL(new RegExp(`namespace=${namespaces[other]}`));
});

test("an event links to the object it is about (core/v1 involvedObject)", async ({ page }) => {
  await page.goto('./?namespace=demo&group=&version=v1&resource=events');
  // (The row's first cell: its Object cell is a link of its own.)
  await page.getByTestId('grid-row').first().locator('td').first().click();
  await expect(page.getByTestId('object-title')).toHaveText(/^Event /);
  const link = page.getByTestId('involved-object-link');
  await expect(link).toHaveText(/^Pod demo\/\S+$/);
  const name = (await link.textContent()).split('/')[1];
  expect(await link.getAttribute('href')).toContain(`name=${name}`);
  await saveScreen(page, 'event-involved-object');
  await link.click();
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${name}`);
  await expect(page).toHaveURL(/resource=pods/);

  // In the list, the Object column (kind/name, as kubectl prints it) links the object too; the
  // rest of the row opens the Event.
  await page.goto('./?namespace=demo&group=&version=v1&resource=events');
  const cell = page.getByTestId('grid-row').first().getByTestId('cell-link');
  await expect(cell).toHaveText(/^pod\/\S+$/);
  const object = (await cell.textContent()).split('/')[1];
  expect(await cell.getAttribute('href')).toMatch(new RegExp(`resource=pods.*name=${object}`));
  await saveScreen(page, 'events-object-links');
  await cell.click();
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${object}`);
});
