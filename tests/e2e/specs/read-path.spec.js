// The read path as a new user meets it: find a resource type, list it in every representation,
// page through it, open an object, and share a link that reproduces the view. A collection opens
// live (list, then watch); the specs about pages and representations read it a page at a time
// (watch=0, the "Pages" button).
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

async function serverList(request, path) {
  const response = await request.get(`${simUrl()}${path}`, { headers: { Accept: 'application/json' } });
  expect(response.ok()).toBeTruthy();
  return response.json();
}

test('the sidebar filter finds types by short name and opens their Table', async ({ page, request }) => {
  await page.goto('./');
  await expect(page.getByRole('navigation', { name: 'Resource types' })).toBeVisible();
  await page.keyboard.press('/');
  const filter = page.getByRole('searchbox', { name: 'Filter resource types' });
  await expect(filter).toBeFocused();
  const nav = page.getByRole('navigation', { name: 'Resource types' });
  // Short names that begin no plural, singular or kind: only the short name can find them.
  for (const [short, plural] of [['cm', 'configmaps'], ['sts', 'statefulsets']]) {
    await filter.fill('');
    await page.keyboard.type(short);
    await expect(nav.getByRole('button', { name: new RegExp(`^${plural}`) })).toBeVisible();
    await expect(nav.getByRole('button', { name: /^(pods|deployments|secrets)/ })).toHaveCount(0);
  }
  await filter.fill('');
  await page.keyboard.type('deploy');
  await expect(nav.getByRole('button', { name: /^deployments/ })).toBeVisible();
  await expect(nav.getByRole('button', { name: /^pods/ })).toHaveCount(0);
  await nav.getByRole('button', { name: /^deployments/ }).click();

  await expect(page).toHaveURL(/group=apps&version=v1&resource=deployments/);
  // It opens live: the server's Table columns, kept up to date by a Table watch.
  await expect(page.getByTestId('live-state')).toContainText('watching');
  await expect(page.getByTestId('mode-live')).toHaveAttribute('aria-pressed', 'true');
  const deployments = await serverList(request, '/apis/apps/v1/deployments');
  await expect(page.getByTestId('grid-row')).toHaveCount(deployments.items.length);
  // Across all namespaces the Namespace column comes first, as in kubectl get -A.
  await expect(page.getByRole('columnheader').first()).toContainText('Namespace');
  await expect(page.getByRole('columnheader', { name: 'Name', exact: true })).toBeVisible();
  await expect(page.getByRole('columnheader', { name: 'Ready', exact: true })).toBeVisible();
  await saveScreen(page, 'deployments-table');
  // "Pages" reads the same collection a page at a time, as a Table.
  await page.getByTestId('mode-pages').click();
  await expect(page).toHaveURL(/watch=0/);
  await expect(page.getByTestId('response-kind')).toHaveText('Table');
  await expect(page.getByTestId('live-view')).toHaveCount(0);
  await expect(page.getByTestId('grid-row')).toHaveCount(deployments.items.length);
});

test('wide shows the priority columns, and headers sort the rows', async ({ page }) => {
  await page.goto('./?group=&version=v1&resource=pods&watch=0');
  await expect(page.getByTestId('response-kind')).toHaveText('Table');
  const narrow = await page.getByRole('columnheader').count();
  await page.getByLabel('Wide (priority columns)').check();
  await expect(page).toHaveURL(/wide=1/);
  await expect.poll(() => page.getByRole('columnheader').count()).toBeGreaterThan(narrow);
  await expect(page.getByRole('columnheader', { name: 'Node', exact: true })).toBeVisible();

  // The Namespace column comes first across all namespaces; Name second.
  const names = () => page.getByTestId('grid-row').locator('td:nth-child(2)').allTextContents();
  // The rows re-render after the click: wait for the header to say how it sorts before reading.
  const nameHeader = page.getByRole('columnheader', { name: /^Name( [▲▼])?$/ });
  await page.getByRole('button', { name: /^Name( [▲▼])?$/ }).click();
  await expect(nameHeader).toHaveAttribute('aria-sort', 'ascending');
  // A reload of the table (the wide columns) may still land after the click: poll, don't read once.
  await expect.poll(async () => {
    const shown = await names();
    return shown.length > 1 && shown.join('\n') === [...shown].sort().join('\n');
  }).toBe(true);
  await expect(nameHeader).toHaveAttribute('aria-sort', 'ascending');
  const ascending = await names();
  expect(ascending).toEqual([...ascending].sort());
  await page.getByRole('button', { name: /^Name( [▲▼])?$/ }).click();
  await expect(nameHeader).toHaveAttribute('aria-sort', 'descending');
  expect(await names()).toEqual([...ascending].reverse());
  await saveScreen(page, 'pods-wide');
});

for (const [label, kind, contentType] of [
  ['JSON', 'PodList', 'application/json'],
  ['YAML', 'PodList', 'application/yaml'],
  ['CBOR', 'PodList', 'application/cbor'],
  ['Metadata only', 'PartialObjectMetadataList', 'application/json'],
  ['Protobuf', 'PodList', 'application/vnd.kubernetes.protobuf'],
]) {
  test(`the ${label} representation is asked for and decoded in the browser`, async ({ page, request }) => {
    await page.goto('./?group=&version=v1&resource=pods&namespace=demo');
    await page.getByRole('group', { name: 'Representation' }).getByRole('button', { name: label, exact: true }).click();
    await expect(page.getByTestId('response-kind')).toHaveText(kind);
    await expect(page.getByTestId('response-content-type')).toHaveText(contentType);
    if (label === 'Protobuf') {
      // kube-sim, like a real server, answers protobuf for a built-in type: the PodList is
      // decoded in full by a part loaded on demand (protobuf.spec.js); the page line gives no count.
      await expect(page.getByTestId('request-accept')).toHaveText('application/vnd.kubernetes.protobuf,application/json');
      await expect(page.getByTestId('protobuf-decoded')).toBeVisible();
      const text = page.getByTestId('document-text');
      await expect(text).toContainText('apiVersion: v1');
      await expect(text).toContainText('kind: PodList');
      await expect(text).toContainText('containers:');
      await expect(page.getByTestId('item-count')).toHaveCount(0);
    } else {
      const pods = await serverList(request, '/api/v1/namespaces/demo/pods');
      await expect(page.getByTestId('item-count')).toHaveText(new RegExp(`^${pods.items.length} on this page`));
    }
    if (label === 'CBOR') {
      await page.getByRole('button', { name: 'Hex (raw bytes)' }).click();
      await expect(page.getByTestId('document-text')).toContainText('00000000  d9 d9 f7');
      await saveScreen(page, 'pods-cbor-hex');
    }
  });
}

/** The page's own list requests of all pods, each with the continue token it sent and (once
 * answered) the token and the objects (namespace/name) its answer gave. */
function podPages(page) {
  const log = [];
  page.on('response', async (response) => {
    const url = new URL(response.url());
    if (url.pathname !== '/api/v1/pods' || url.searchParams.has('watch')) return;
    const entry = { sent: url.searchParams.get('continue'), answer: null };
    log.push(entry);
    const list = await response.json();
    entry.answer = { next: list.metadata.continue, objects: list.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`) };
  });
  return log;
}

/** Waits for the Nth list answer and for the page to show it: its number, and its objects in
 * the document (and not those of the page before). */
async function shownPage(page, log, n, number, before) {
  await expect.poll(() => log.length >= n && log[n - 1].answer !== null).toBe(true);
  const { sent, answer } = log[n - 1];
  await expect(page.getByTestId('page-number')).toHaveText(`Page ${number}`);
  await expect(page.getByTestId('item-count')).toHaveText(/^2 on this page/);
  const text = page.getByTestId('document-text');
  for (const object of answer.objects) await expect(text).toContainText(object.split('/')[1]);
  for (const object of before ? before.objects : []) await expect(text).not.toContainText(object.split('/')[1]);
  return { sent, ...answer };
}

test('paging follows continue tokens forward and back, and says the snapshot', async ({ page, request }) => {
  const log = podPages(page);
  await page.goto('./?group=&version=v1&resource=pods&limit=2&as=json');
  const first = await shownPage(page, log, 1, 1);
  expect(first.sent).toBeNull();
  // The demo's CronJob adds pods every minute: the collection to compare with is the server's at
  // the snapshot the pages are read at.
  const snapshot = await page.getByTestId('snapshot-rv').textContent();
  const all = await serverList(request, `/api/v1/pods?resourceVersion=${snapshot}&resourceVersionMatch=Exact`);
  expect(all.items.length, 'enough pods for three pages of 2').toBeGreaterThan(6);
  await expect(page.getByTestId('item-count')).toHaveText(`2 on this page, about ${all.items.length - 2} more (remainingItemCount is an estimate)`);
  // Each next page sends the continue token the page before it answered, and shows other objects.
  await page.getByRole('button', { name: 'Next page' }).click();
  const second = await shownPage(page, log, 2, 2, first);
  expect(second.sent).toBe(first.next);
  await expect(page.getByTestId('snapshot-rv')).toHaveText(snapshot);
  await page.getByRole('button', { name: 'Next page' }).click();
  const third = await shownPage(page, log, 3, 3, second);
  expect(third.sent).toBe(second.next);
  await expect(page.getByTestId('snapshot-rv')).toHaveText(snapshot);
  // The three pages are the first six objects of the collection, in its order.
  expect([...first.objects, ...second.objects, ...third.objects]).toEqual(all.items.slice(0, 6).map((i) => `${i.metadata.namespace}/${i.metadata.name}`));
  // Back: page 2 again by its own token, then page 1 without one.
  await page.getByRole('button', { name: 'Previous page' }).click();
  const back = await shownPage(page, log, 4, 2, third);
  expect(back.sent).toBe(first.next);
  expect(back.objects).toEqual(second.objects);
  await page.getByRole('button', { name: 'Previous page' }).click();
  const start = await shownPage(page, log, 5, 1, second);
  expect(start.sent).toBeNull();
  expect(start.objects).toEqual(first.objects);
});

test('on a later page, another page size starts again from the first page, in one request without a continue token', async ({ page }) => {
  await page.goto('./?group=&version=v1&resource=pods&limit=2&as=json');
  await expect(page.getByTestId('page-number')).toHaveText('Page 1');
  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(page.getByTestId('page-number')).toHaveText('Page 2');
  const sent = [];
  page.on('request', (r) => { if (/\/api\/v1\/pods\?/.test(r.url())) sent.push(r.url()); });
  await page.getByLabel('Page size').selectOption('50');
  await expect(page.getByTestId('page-number')).toHaveText('Page 1');
  await expect(page.getByTestId('response-status')).toHaveText('200 OK');
  await page.waitForTimeout(1_000);
  expect(sent).toHaveLength(1);
  expect(sent[0]).toContain('limit=50');
  expect(sent[0]).not.toContain('continue=');
});

test('an expired continue token offers to restart from the first page', async ({ page, request }) => {
  await page.goto('./?group=&version=v1&resource=pods&limit=2&as=json');
  await expect(page.getByTestId('page-number')).toHaveText('Page 1');
  await request.post(`${simUrl()}/_sim/compact`);
  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(page.getByTestId('status-code')).toHaveText('410');
  const notice = page.getByTestId('expired-continue');
  await expect(notice).toContainText('continue token has expired');
  await saveScreen(page, 'expired-continue');
  await notice.getByRole('button', { name: 'Restart from the first page' }).click();
  await expect(page.getByTestId('page-number')).toHaveText('Page 1');
  await expect(page.getByTestId('response-status')).toHaveText('200 OK');
});

test('a selector syntax error is caught before sending, and the server\'s Status shown when sent anyway', async ({ page }) => {
  await page.goto('./?group=&version=v1&resource=pods&watch=0');
  await expect(page.getByTestId('response-kind')).toHaveText('Table');
  const sent = [];
  page.on('request', (r) => { if (r.url().includes('labelSelector')) sent.push(r.url()); });
  await page.getByLabel('Label selector').fill('app in (');
  await page.getByRole('button', { name: 'Apply selectors' }).click();
  const problem = page.getByTestId('selector-problem');
  await expect(problem).toContainText('Label selector: unable to parse requirement');
  await expect(problem).toContainText('expected: a set of values in parentheses');
  await expect(problem).toContainText('at character 7');
  await saveScreen(page, 'selector-problem');
  expect(sent).toEqual([]);
  await problem.getByRole('button', { name: 'Send anyway' }).click();
  await expect(page.getByTestId('status-code')).toHaveText('400');
  await expect(page.getByTestId('status-reason')).toHaveText('BadRequest');
  await expect(page.getByTestId('status-message')).toContainText('unable to parse requirement');
});

test('a label selector narrows the list', async ({ page, request }) => {
  const web = await serverList(request, '/api/v1/pods?labelSelector=app%3Dweb');
  await page.goto('./?group=&version=v1&resource=pods');
  await page.getByLabel('Label selector').fill('app=web');
  await page.getByLabel('Label selector').press('Enter');
  await expect(page).toHaveURL(/labelSelector=app%3Dweb/);
  await expect(page.getByTestId('grid-row')).toHaveCount(web.items.length);
});

/** The server's own Table of PATH: its columns (name, type, priority) and each row's cells. */
async function serverTable(request, path) {
  const response = await request.get(`${simUrl()}${path}`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  expect(response.ok()).toBeTruthy();
  const table = await response.json();
  expect(table.kind).toBe('Table');
  return table;
}

/** An age as the server prints it (`45s`, `6m6s`, `3h20m`, `5d`), in seconds. */
function ageSeconds(text) {
  const units = { d: 86_400, h: 3_600, m: 60, s: 1 };
  const parts = [...text.matchAll(/(\d+)([dhms])/g)];
  expect(parts.map((p) => p[0]).join(''), `an age: ${text}`).toBe(text);
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * units[unit], 0);
}

/** The grid as shown: each row's cells by column header; a date cell as its text and the exact
 * time it carries as its title. */
async function shownCells(page) {
  const headers = (await page.getByRole('columnheader').allTextContents()).map((h) => h.replace(/ [▲▼]$/, '').trim());
  const rows = await page.getByTestId('grid-row').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => ({ text: td.textContent.trim(), title: td.title }))),
  );
  return rows.map((cells) => Object.fromEntries(cells.map((c, i) => [headers[i], c])));
}

/** Checks that the grid shows the server Table's columns of at most PRIORITY (Namespace first, as
 * the grid shows a namespaced type across all namespaces), in the server's order, and each row's
 * cells as the server printed them. An age is printed when asked for, so the page's (printed
 * when its watch began) is the server's within a minute; the exact time it carries on hover is
 * the row object's creationTimestamp. */
async function expectServerCells(page, table, priority) {
  const columns = table.columnDefinitions.map((c, i) => ({ ...c, i })).filter((c) => (c.priority || 0) <= priority);
  const headers = (await page.getByRole('columnheader').allTextContents()).map((h) => h.replace(/ [▲▼]$/, '').trim());
  expect(headers).toEqual(['Namespace', ...columns.map((c) => c.name)]);
  const key = (namespace, name) => `${namespace}/${name}`;
  const shown = new Map((await shownCells(page)).map((row) => [key(row.Namespace.text, row.Name.text), row]));
  expect([...shown.keys()].sort()).toEqual(table.rows.map((r) => key(r.object.metadata.namespace, r.object.metadata.name)).sort());
  for (const row of table.rows) {
    const cells = shown.get(key(row.object.metadata.namespace, row.object.metadata.name));
    for (const c of columns) {
      const value = row.cells[c.i];
      const where = `${key(row.object.metadata.namespace, row.object.metadata.name)} ${c.name}`;
      if (c.type === 'date') {
        expect(Math.abs(ageSeconds(cells[c.name].text) - ageSeconds(value)), where).toBeLessThanOrEqual(60);
        expect(cells[c.name].title, where).toBe(row.object.metadata.creationTimestamp);
      } else {
        expect(cells[c.name].text, where).toBe(value === null ? '<none>' : String(value));
      }
    }
  }
}

test('a custom resource lists with its printer columns', async ({ page, request }) => {
  await page.goto('./');
  await page.getByRole('searchbox', { name: 'Filter resource types' }).fill('widget');
  await page.getByRole('navigation', { name: 'Resource types' }).getByRole('button', { name: /^widgets/ }).click();
  await expect(page.getByTestId('live-state')).toContainText('watching');
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  for (const column of ['Size', 'Replicas', 'Phase', 'Age']) {
    await expect(page.getByRole('columnheader', { name: column, exact: true })).toBeVisible();
  }
  // Color has priority 1: shown with Wide, as kubectl get -o wide.
  await expect(page.getByRole('columnheader', { name: 'Color', exact: true })).toHaveCount(0);
  // Every cell is the server's own (the Table kube-sim serves for the CRD's printer columns).
  const table = await serverTable(request, '/apis/example.com/v1/widgets');
  await expect(page.getByTestId('grid-row')).toHaveCount(table.rows.length);
  await expectServerCells(page, table, 0);
  await page.getByLabel('Wide (priority columns)').check();
  await expect(page.getByRole('columnheader', { name: 'Color', exact: true })).toBeVisible();
  await expectServerCells(page, table, 1);
  await saveScreen(page, 'widgets-table');
});

test('opening an object shows its metadata and a deep link that survives reload and back', async ({ page }) => {
  await page.goto('./?group=apps&version=v1&resource=deployments&namespace=demo');
  await page.getByTestId('grid-row').filter({ hasText: 'web' }).first().click();
  await expect(page).toHaveURL(/name=web/);
  await expect(page.getByTestId('object-title')).toHaveText('Deployment web');
  await expect(page.getByTestId('labels')).toContainText('app=web');
  await expect(page.getByTestId('document-text')).not.toContainText('managedFields');
  await page.getByLabel('Show managedFields').check();
  await expect(page.getByTestId('document-text')).toContainText('managedFields');
  await saveScreen(page, 'object-deployment');

  await page.reload();
  await expect(page.getByTestId('object-title')).toHaveText('Deployment web');
  await page.goBack();
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  await expect(page.getByTestId('object-title')).toHaveCount(0);
});

test('the namespace selector lists namespaces and narrows the collection', async ({ page, request }) => {
  const shop = await serverList(request, '/api/v1/namespaces/shop/pods');
  await page.goto('./?group=&version=v1&resource=pods');
  await page.getByLabel('Namespace').selectOption('shop');
  await expect(page).toHaveURL(/namespace=shop/);
  await expect(page.getByTestId('grid-row')).toHaveCount(shop.items.length);
});

test('load all follows every page with a progress bar and ends with every object', async ({ page, request }) => {
  // The demo's CronJob adds pods every minute: every page is read at the first page's snapshot,
  // so the expected list is the server's at that resourceVersion, exactly.
  const firstPage = page.waitForResponse((r) => {
    const url = new URL(r.url());
    // (The Table's answer: the page reads the namespaces from a metadata-only twin of it.)
    return url.pathname === '/api/v1/pods' && url.searchParams.get('limit') === '2' && !url.searchParams.get('continue')
      && (r.request().headers().accept || '').includes('as=Table');
  });
  await page.goto('./?group=&version=v1&resource=pods&limit=2&watch=0');
  await expect(page.getByTestId('grid-row')).toHaveCount(2);
  const snapshot = (await (await firstPage).json()).metadata.resourceVersion;
  const all = await serverList(request, `/api/v1/pods?resourceVersion=${snapshot}&resourceVersionMatch=Exact`);
  await page.getByRole('button', { name: 'Load all pages' }).click();
  await expect(page.getByTestId('load-all-progress')).toHaveText(`All ${all.items.length} loaded`);
  await expect(page.getByTestId('row-count')).toHaveText(`${all.items.length} rows`);
  // Every row knows its namespace: the first page's from its metadata-only twin, the following
  // pages' from the metadata their rows carry.
  await expect(page.getByTestId('rows-metadata')).toHaveText('Namespaces read from a metadata-only list of this page.');
  const shown = await page.getByTestId('grid-row').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent.trim()).join('/')));
  const expected = all.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
  expect(shown).toEqual(expected.slice(0, shown.length));
  await saveScreen(page, 'load-all');
});
