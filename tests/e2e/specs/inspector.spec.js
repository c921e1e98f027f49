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
