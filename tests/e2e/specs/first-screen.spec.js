// The first screen proves the pipe end to end: browser → trunk's proxy → kube-sim, and back.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

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

test('tells which discovery the server answered and how much it found', async ({ page }) => {
  await page.goto('./');
  await expect(page.getByTestId('discovery-summary')).toHaveText(
    /^\d+ API groups, \d+ resource types, from (aggregated|legacy) discovery$/,
  );
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
