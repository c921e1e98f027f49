// The wire inspector lists what the page asked and what came back, and turns it into commands.
const { test, expect } = require('@playwright/test');
const { saveScreen } = require('./helpers');

test('every request is listed with its status, headers and body, and copies as curl and kubectl', async ({ page }) => {
  await page.goto('./?group=&version=v1&resource=pods&namespace=demo&as=cbor');
  await expect(page.getByTestId('response-content-type')).toHaveText('application/cbor');
  await page.getByRole('button', { name: 'Wire inspector' }).click();
  const inspector = page.getByRole('complementary', { name: 'Wire inspector' });
  await expect(inspector).toBeVisible();
  const row = inspector.getByTestId('inspector-row').filter({ hasText: '/api/v1/namespaces/demo/pods' });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('application/cbor');
  await row.click();
  await expect(inspector.getByTestId('response-headers')).toContainText('content-type: application/cbor');
  // Binary bodies are shown as hex, starting with the self-described CBOR tag.
  await expect(inspector.getByTestId('inspector-body')).toContainText('00000000  d9 d9 f7');
  await expect(inspector.getByTestId('inspector-curl')).toHaveText(
    /^curl -H 'Accept: application\/cbor' 'http:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/demo\/pods\?limit=500&pretty=false'$/,
  );
  await expect(inspector.getByTestId('inspector-kubectl')).toHaveText(
    "kubectl get --raw '/api/v1/namespaces/demo/pods?limit=500&pretty=false'",
  );
  await saveScreen(page, 'wire-inspector');
  await inspector.getByRole('button', { name: 'Close' }).click();
  await expect(inspector).toBeHidden();
});

// A body larger than what the inspector shows: it keeps the first 64 KiB (so that a log of 200
// large lists does not hold them all, #41 soak) and still says the whole body's size.
test('a large body is listed with its whole size and shown by its first 64 KiB', async ({ page, request }) => {
  await page.goto('./?group=apps&version=v1&resource=deployments&namespace=demo');
  await page.getByTestId('explain-link').click();
  await expect(page.getByTestId('explain-title')).toHaveText('Schema of Deployment · apps/v1');
  await page.getByRole('button', { name: 'Wire inspector' }).click();
  const inspector = page.getByRole('complementary', { name: 'Wire inspector' });
  const row = inspector.getByTestId('inspector-row').filter({ hasText: '/openapi/v3/apis/apps/v1?hash=' });
  await expect(row).toHaveCount(1);
  const path = (await row.locator('td').nth(1).textContent()).trim();
  const whole = (await (await request.get(path, { headers: { Accept: 'application/json' } })).body()).length;
  expect(whole).toBeGreaterThan(65536);
  await expect(row.locator('td').nth(4)).toHaveText(String(whole));
  await row.click();
  await expect(inspector.getByRole('heading', { name: /Body/ })).toContainText(`(first 65,536 of ${whole.toLocaleString('en-US')} bytes)`);
  await expect(inspector.getByTestId('inspector-body')).toContainText('"components": {');
});
