// With no API server behind the proxy, the page explains what was tried and what to do.
const { test, expect } = require('@playwright/test');
const { saveScreen } = require('./helpers');

test('a closed port behind the proxy shows the error state, not a blank page', async ({ page }) => {
  const deadUrl = process.env.EXPLORER_DEAD_URL;
  if (!deadUrl) throw new Error('EXPLORER_DEAD_URL is not set: run the end-to-end tests through scripts/test');
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));

  await page.goto(deadUrl);
  const alert = page.getByRole('alert');
  await expect(alert).toBeVisible();
  await expect(alert.getByRole('heading')).toHaveText('Cannot reach the Kubernetes API');
  await expect(page.getByTestId('error-url')).toHaveText(/\/version$/);
  await expect(page.getByTestId('error-got')).not.toBeEmpty();
  await expect(alert).toContainText('kubectl proxy');
  await expect(page.getByTestId('cluster-version')).toHaveText('unreachable');
  await saveScreen(page, 'error-state');

  // Retrying while the API is still missing keeps the explanation on screen.
  await alert.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  expect(errors).toEqual([]);
});
