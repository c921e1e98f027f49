// The first screen proves the pipe end to end: browser → trunk's proxy → kube-sim, and back.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl, legacyDiscoveryUrl } = require('./helpers');

test('shows the cluster version and the API groups read through the proxy', async ({ page, request }) => {
  const version = await (await request.get(`${simUrl()}/version`)).json();
  const apis = await (await request.get(`${simUrl()}/apis`)).json();

  await page.goto('./');
  await expect(page.getByTestId('cluster-version')).toHaveText(version.gitVersion);
  await expect(page.getByTestId('git-version')).toHaveText(version.gitVersion);

  const groups = page.getByRole('list', { name: 'API groups' }).getByTestId('api-group');
  await expect(groups.first()).toBeVisible();
  // Every group the server lists, plus the core group.
  await expect(groups).toHaveCount(apis.groups.length + 1);
  await expect(groups.filter({ hasText: 'core' }).first()).toContainText('pods');
  await expect(groups.filter({ hasText: /^apps/ })).toContainText('deployments');
  await saveScreen(page, 'first-screen');
});

/** The page's own discovery requests (`/api`, `/apis` and below), with their responses. */
function discoveryLog(page) {
  const log = [];
  page.on('response', (response) => {
    const { pathname } = new URL(response.url());
    if (/^\/api(\/v1)?$|^\/apis(\/[^/]+){0,2}$/.test(pathname)) {
      log.push({ path: pathname, accept: response.request().headers().accept, status: response.status(), contentType: response.headers()['content-type'] });
    }
  });
  return log;
}

async function summaryOf(page) {
  const summary = page.getByTestId('discovery-summary');
  await expect(summary).toHaveText(/^\d+ API groups, \d+ resource types, from (aggregated|legacy) discovery$/);
  return summary.textContent();
}

test('tells which discovery the server answered and how much it found', async ({ page, request }) => {
  const log = discoveryLog(page);
  await page.goto('./');
  const summary = await summaryOf(page);
  const apis = await (await request.get(`${simUrl()}/apis`)).json();
  expect(summary).toMatch(new RegExp(`^${apis.groups.length + 1} API groups, \\d+ resource types, from aggregated discovery$`));
  // One aggregated document for each root, and nothing more.
  expect(log.map((e) => [e.path, e.status, e.contentType])).toEqual([
    ['/api', 200, 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'],
    ['/apis', 200, 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'],
  ]);
});

test('a server without aggregated discovery is read by its legacy documents, and finds the same', async ({ page, context }) => {
  // The same build (its /explorer/ bundle) served by a kube-sim started with
  // --legacy-discovery-only, as a server before 1.26 answers.
  const aggregatedPage = await context.newPage();
  await aggregatedPage.goto('./');
  const aggregated = await summaryOf(aggregatedPage);
  await aggregatedPage.close();

  const log = discoveryLog(page);
  await page.goto(legacyDiscoveryUrl());
  const summary = await summaryOf(page);
  expect(summary).toMatch(/ from legacy discovery$/);
  expect(summary.replace(/ from legacy discovery$/, '')).toBe(aggregated.replace(/ from aggregated discovery$/, ''));
  // The aggregated document was asked for and the server answered its JSON fallback; then one
  // APIResourceList was read for each group version.
  const roots = log.filter((e) => e.path === '/api' || e.path === '/apis');
  expect(roots.map((e) => [e.path, e.status, e.contentType])).toEqual([
    ['/api', 200, 'application/json'],
    ['/apis', 200, 'application/json'],
  ]);
  expect(roots.every((e) => e.accept.startsWith('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'))).toBe(true);
  const lists = log.filter((e) => !roots.includes(e));
  expect(lists.map((e) => e.path)).toEqual(expect.arrayContaining(['/api/v1', '/apis/apps/v1', '/apis/example.com/v1']));
  expect(lists.every((e) => e.status === 200)).toBe(true);

  const groups = page.getByRole('list', { name: 'API groups' }).getByTestId('api-group');
  await expect(groups.filter({ hasText: 'core' }).first()).toContainText('pods');
  await expect(groups.filter({ hasText: /^apps/ })).toContainText('deployments');
  await saveScreen(page, 'first-screen-legacy-discovery');
  // The sidebar works from it as from the aggregated document.
  await page.getByRole('navigation', { name: 'Resource types' }).getByRole('button', { name: /^deployments/ }).click();
  await expect(page.getByTestId('grid-row').filter({ hasText: 'web' }).first()).toBeVisible();
});

test('the resource types in the API group cards are links: a click opens the type, the address opens it anew', async ({ page, context }) => {
  await page.goto('./');
  const apps = page.getByRole('list', { name: 'API groups' }).getByTestId('api-group').filter({ hasText: /^apps/ });
  const deployments = apps.getByRole('link', { name: 'deployments', exact: true });
  await expect(deployments).toHaveAttribute('title', /^Deployment \(apps\/v1\), namespaced$/);
  const href = await deployments.getAttribute('href');
  expect(href).toContain('resource=deployments');
  await deployments.click();
  await expect(page).toHaveURL(/resource=deployments/);
  await expect(page.getByTestId('grid-row').filter({ hasText: 'web' }).first()).toBeVisible();
  // Back returns to the first screen; the link's address alone opens the same view.
  await page.goBack();
  await expect(page.getByTestId('api-group').first()).toBeVisible();
  const other = await context.newPage();
  await other.goto(new URL(href, page.url()).toString());
  await expect(other.getByTestId('grid-row').filter({ hasText: 'web' }).first()).toBeVisible();
  await other.close();
});
