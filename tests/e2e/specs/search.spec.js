// Search across types (#20 item 5): objects of every listable type by part of their name and/or a
// label selector, in a namespace or the whole cluster, as metadata-only pages, three types at a
// time, with counts per type, a progress bar, the types skipped for lack of permission, Stop, and
// links to the objects found. What the page finds is checked against the real kubectl asking the
// same kube-sim.
const { spawnSync } = require('node:child_process');
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl, asUser } = require('./helpers');

const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

/** The real kubectl against the same kube-sim (as its default admin, or `--as user`). */
function kubectl(...args) {
  const result = spawnSync('kubectl', ['--server', simUrl(), ...args], { encoding: 'utf8', timeout: 30_000 });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** kubectl auth can-i's answer, "yes" or "no" (it exits 1 for "no"). */
function canI(user, ...args) {
  const result = spawnSync('kubectl', ['--server', simUrl(), '--as', user, 'auth', 'can-i', ...args], { encoding: 'utf8', timeout: 30_000 });
  if (result.error) throw result.error;
  const answer = result.stdout.trim();
  if (answer !== 'yes' && answer !== 'no') throw new Error(`kubectl auth can-i ${args.join(' ')}: ${answer} ${result.stderr}`);
  return answer;
}

/** How many objects of `type` (all namespaces, or `namespace`) kubectl finds whose name contains `part`. */
function kubectlCount(type, part, namespace, selector) {
  const args = ['get', type, '-o', 'name'];
  args.push(...(namespace ? ['-n', namespace] : ['-A']));
  if (selector) args.push('-l', selector);
  return kubectl(...args)
    .split('\n')
    .filter((line) => line && line.split('/').pop().includes(part)).length;
}

/** The list requests the page sends (metadata-only lists of any type), as sent. */
function listRequests(page) {
  const sent = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    // The search's pages (limit=500), not the metadata lists an object's screen sends to say how
    // what it names is (a Deployment's ConfigMap, by metadata.name, read again every 10 s).
    const searchPage = url.searchParams.get('limit') === '500';
    if (/^\/(api|apis)\//.test(url.pathname) && searchPage && (request.headers().accept || '').startsWith(METADATA_LIST)) {
      sent.push({ path: url.pathname, query: url.searchParams });
    }
  });
  return sent;
}

/** Waits for the search to end and returns what the page says it took. */
async function searchDone(page) {
  await expect(page.getByTestId('search-timing')).toHaveText(/^in [\d.,]+ (ms|sec)$/, { timeout: 60_000 });
  return page.getByTestId('search-timing').textContent();
}

/** The Search button of the search form (the top bar has one too, which opens the screen). */
function searchButton(page) {
  return page.getByRole('search').getByRole('button', { name: 'Search', exact: true });
}

// A type's group of hits; not metrics.k8s.io's, whose `pods` and `nodes` share the names.
function group(page, resource) {
  return page.locator(`[data-testid="search-group"][data-resource="${resource}"]:not([data-group="metrics.k8s.io"])`);
}

async function simPost(path) {
  const response = await fetch(`${simUrl()}${path}`, { method: 'POST' });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
}

test('a part of a name searched across the whole cluster finds objects of several types, grouped by type with counts', async ({ page }) => {
  const lists = listRequests(page);
  await page.goto('./');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page).toHaveURL(/[?&]search=/);
  await expect(page.getByTestId('search-problem')).toContainText('Type part of a name, a label selector, or both');
  await page.getByRole('searchbox', { name: 'Name contains' }).fill('web');
  await page.getByRole('searchbox', { name: 'Name contains' }).press('Enter');
  await expect(page).toHaveURL(/[?&]search=web(&|$)/);
  const took = await searchDone(page);
  console.log(`[search] cluster-wide "web" over the default dataset: ${took}; ${await page.getByTestId('search-progress').textContent()}`);

  // Counts per type, each what kubectl finds.
  for (const [resource, type] of [['pods', 'pods'], ['deployments', 'deployments.apps'], ['replicasets', 'replicasets.apps'],
    ['services', 'services'], ['configmaps', 'configmaps'], ['secrets', 'secrets']]) {
    const expected = kubectlCount(type, 'web');
    expect(expected, `kubectl finds some ${type}`).toBeGreaterThan(0);
    await expect(group(page, resource).getByTestId('search-count')).toHaveText(String(expected));
    await expect(group(page, resource).getByTestId('search-hit')).toHaveCount(expected);
  }
  await expect(group(page, 'deployments').getByTestId('search-hit')).toHaveText(['demo/web']);
  await expect(group(page, 'deployments')).toContainText('Deployment');
  await expect(group(page, 'deployments')).toContainText('apps/v1 · deployments');
  // Types without a match are counted apart; nothing was refused to the cluster's admin.
  await expect(page.getByTestId('search-without-matches')).toContainText('without a match');
  await expect(page.getByTestId('search-skipped')).toHaveCount(0);
  const progress = page.getByRole('progressbar', { name: 'Search progress' });
  const max = await progress.getAttribute('max');
  await expect(progress).toHaveAttribute('value', max);
  await expect(page.getByTestId('search-progress')).toContainText(`${max} types searched`);

  // Metadata-only pages of every listable type, cluster-scoped ones included, no name filter sent.
  expect(lists.some((r) => r.path === '/api/v1/nodes')).toBe(true);
  expect(lists.some((r) => r.path === '/api/v1/pods')).toBe(true);
  expect(lists.every((r) => r.query.get('limit') === '500' && !r.query.has('labelSelector'))).toBe(true);
  expect(lists.filter((r) => !r.query.has('continue'))).toHaveLength(Number(max));
  await saveScreen(page, 'search-cluster');

  // The dark theme, same screen.
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  await saveScreen(page, 'search-cluster-dark');
});

test('a label selector in one namespace is sent to the server and finds only namespaced types there; a bad one says what was expected', async ({ page }) => {
  const lists = listRequests(page);
  await page.goto('./?search=&namespace=demo');
  await page.getByRole('searchbox', { name: 'Label selector' }).fill('app=web');
  await searchButton(page).click();
  await expect(page).toHaveURL(/searchLabels=app%3Dweb/);
  await searchDone(page);
  for (const [resource, type] of [['pods', 'pods'], ['deployments', 'deployments.apps'], ['replicasets', 'replicasets.apps'],
    ['services', 'services'], ['configmaps', 'configmaps']]) {
    const expected = kubectlCount(type, '', 'demo', 'app=web');
    await expect(group(page, resource).getByTestId('search-count')).toHaveText(String(expected));
  }
  // The selector's labels are shown beside each match; secrets (web-tls has no label) do not match.
  await expect(group(page, 'configmaps').getByTestId('search-hit')).toHaveText(['demo/web-config']);
  await expect(group(page, 'configmaps')).toContainText('app=web');
  await expect(group(page, 'secrets')).toHaveCount(0);
  expect(lists.length).toBeGreaterThan(5);
  expect(lists.every((r) => r.path.includes('/namespaces/demo/') && r.query.get('labelSelector') === 'app=web')).toBe(true);
  expect(lists.some((r) => r.path.endsWith('/nodes'))).toBe(false);
  await saveScreen(page, 'search-labels-namespace');

  // A bad selector from a link: the error quotes what was expected, and nothing is listed.
  const before = lists.length;
  await page.goto('./?search=&searchLabels=tier%20in%20(front');
  const problem = page.getByTestId('search-problem');
  await expect(problem).toHaveAttribute('role', 'alert');
  await expect(problem).toContainText('Label selector "tier in (front"');
  await expect(problem).toContainText('expected');
  await expect(problem).toContainText('at character');
  await page.waitForLoadState('networkidle');
  expect(lists.length).toBe(before);
  await saveScreen(page, 'search-bad-selector');
});

test('a match opens its object; back shows the search again without listing anything', async ({ page }) => {
  const lists = listRequests(page);
  await page.goto('./?search=web&namespace=demo');
  await searchDone(page);
  const sent = lists.length;
  expect(lists.every((r) => r.path.includes('/namespaces/demo/'))).toBe(true);
  const link = group(page, 'deployments').getByRole('link', { name: 'demo/web' });
  await expect(link).toHaveAttribute('href', /group=apps&version=v1&resource=deployments&namespace=demo&name=web/);
  await link.click();
  await expect(page.getByTestId('object-title')).toHaveText('Deployment web');
  expect(page.url()).not.toContain('search=');
  await page.goBack();
  await expect(page.getByTestId('search-timing')).toContainText('Shown again');
  await expect(group(page, 'deployments').getByTestId('search-count')).toHaveText('1');
  expect(lists.length).toBe(sent);
  // Search on the same search lists everything anew.
  await searchButton(page).click();
  await searchDone(page);
  expect(lists.length).toBe(2 * sent);
});

test('types the user may not list are skipped: known ones unasked, the others on their 403, each with the reason on demand', async ({ page }) => {
  // viewer: view everywhere (no secrets, no RBAC objects); the rules say so, so those are never asked for.
  const sent = await asUser(page, 'viewer');
  await page.goto('./?search=web&namespace=demo');
  await searchDone(page);
  // What kubectl says viewer may not list in demo, type by type, is what was skipped unasked.
  const refused = kubectl('api-resources', '--namespaced=true', '--verbs=list', '-o', 'name')
    .split('\n')
    .filter((type) => type && canI('viewer', 'list', type, '-n', 'demo') === 'no');
  expect(refused).toContain('secrets');
  await expect(page.getByTestId('search-skipped-count')).toHaveText(`${refused.length} types skipped`);
  await expect(page.getByTestId('search-skipped')).toContainText(`(${refused.length} known from your access rules, not asked; 0 answered 403 Forbidden)`);
  expect(sent.some((r) => r.path.endsWith('/secrets'))).toBe(false);
  const ofType = (path, type) => {
    const [plural, ...group] = type.split('.');
    const prefix = group.length ? `/apis/${group.join('.')}/` : '/api/';
    return path.startsWith(prefix) && path.endsWith(`/namespaces/demo/${plural}`);
  };
  expect(sent.filter((r) => refused.some((type) => ofType(r.path, type)))).toEqual([]);
  await expect(group(page, 'pods').getByTestId('search-count')).toHaveText('3');
  await page.getByTestId('search-skipped').locator('summary').click();
  const secrets = page.getByTestId('search-skipped').locator('tr[data-resource="secrets"]');
  await expect(secrets).toContainText('not asked: you may not list secrets in demo');
  await expect(secrets).toContainText('kubectl auth can-i list secrets -n demo');
});

test('a user refused most of the cluster sees what they may list, the types skipped counted, and few access reviews', async ({ page }) => {
  // dev: lists namespaces cluster-wide, nothing else there. The rules of default say no to the
  // types dev cannot read even there (skipped unasked) but cannot say no to the others at the
  // cluster scope: those are listed and answer 403.
  const sent = await asUser(page, 'dev');
  await page.goto('./?search=demo');
  await searchDone(page);
  await expect(group(page, 'namespaces').getByTestId('search-hit')).toHaveText(['demo']);
  const skipped = page.getByTestId('search-skipped');
  await skipped.locator('summary').click();
  await expect(skipped).toContainText(/known from your access rules, not asked; [1-9]\d* answered 403 Forbidden/);
  const pods = skipped.locator('tr[data-resource="pods"]').filter({ hasNotText: 'metrics.k8s.io' });
  await expect(pods).toContainText('403: pods is forbidden: User "dev" cannot list resource "pods" in API group "" at the cluster scope');
  await expect(pods).toContainText('kubectl auth can-i list pods -A');
  await expect(skipped.locator('tr[data-resource="nodes"]').filter({ hasNotText: 'metrics.k8s.io' })).toContainText('not asked: you may not list nodes (cluster-scoped)');
  expect(canI('dev', 'list', 'pods', '-A')).toBe('no');
  expect(canI('dev', 'list', 'namespaces')).toBe('yes');
  const answered403 = await skipped.locator('tr', { hasText: '403:' }).count();
  const listed = Number(await page.getByRole('progressbar', { name: 'Search progress' }).getAttribute('max'));
  expect(answered403).toBe(listed - 1);
  await saveScreen(page, 'search-skipped');
  // The 403s were foreseen by the rules (no "yes" at the cluster scope): they do not make the
  // page ask its access reviews again, one rules review for each.
  const rulesReviews = sent.filter((r) => r.path.endsWith('/selfsubjectrulesreviews')).length;
  expect(rulesReviews).toBeLessThanOrEqual(2);
});

test('Stop aborts the requests in flight, keeps what was found and starts no other type', async ({ page }) => {
  const lists = listRequests(page);
  const aborted = [];
  page.on('requestfailed', (request) => {
    if ((request.headers().accept || '').startsWith(METADATA_LIST)) aborted.push(request.failure()?.errorText);
  });
  await page.goto('./?search=&namespace=demo');
  await expect(page.getByRole('searchbox', { name: 'Name contains' })).toBeVisible();
  await simPost('/_sim/slow?ms=1500');
  try {
    await page.getByRole('searchbox', { name: 'Name contains' }).fill('web');
    await searchButton(page).click();
    const stop = page.getByRole('button', { name: 'Stop' });
    await expect(stop).toBeEnabled();
    await expect(page.getByTestId('search-progress')).toContainText('listing');
    await expect.poll(() => lists.length).toBeGreaterThanOrEqual(3);
    await stop.click();
    await expect(page.getByTestId('search-progress')).toContainText('Stopped:');
    const max = Number(await page.getByRole('progressbar', { name: 'Search progress' }).getAttribute('max'));
    const value = Number(await page.getByRole('progressbar', { name: 'Search progress' }).getAttribute('value'));
    expect(value).toBeLessThan(max);
    await expect(stop).toBeDisabled();
    await expect.poll(() => aborted.length).toBeGreaterThan(0);
    expect(aborted.every((text) => /ABORTED/i.test(text || ''))).toBe(true);
    await saveScreen(page, 'search-stopped');
    const afterStop = lists.length;
    await page.waitForTimeout(2000);
    expect(lists.length).toBe(afterStop);
  } finally {
    await simPost('/_sim/slow?ms=0');
  }
});

test('a sidebar filter that names no type offers to search for objects of that name', async ({ page }) => {
  await page.goto('./');
  const sidebar = page.getByRole('navigation', { name: 'Resource types' });
  await sidebar.getByRole('searchbox', { name: 'Filter resource types' }).fill('web-tls');
  const offer = sidebar.getByTestId('sidebar-search');
  await expect(offer).toHaveText('Search objects named like "web-tls" in every type');
  await offer.click();
  await expect(page).toHaveURL(/[?&]search=web-tls(&|$)/);
  await searchDone(page);
  await expect(group(page, 'secrets').getByTestId('search-hit')).toHaveText(['demo/web-tls']);
  await expect(page.getByTestId('search-progress')).toContainText('1 match in 1 type');
});
