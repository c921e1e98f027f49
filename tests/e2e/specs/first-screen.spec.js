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
