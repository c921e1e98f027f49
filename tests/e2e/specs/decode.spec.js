// The browser twin of kube-decode: paste or pick a captured body and see it decoded.
const path = require('node:path');
const { test, expect } = require('@playwright/test');
const { saveScreen } = require('./helpers');

// The repository's real wire data (tests/fixtures/kube).
const FIXTURES = path.join(__dirname, '..', '..', 'fixtures');

test('a picked CBOR file is recognised, decoded, and viewable as hex', async ({ page }) => {
  await page.goto('./');
  await page.getByLabel('Body file').setInputFiles(path.join(FIXTURES, 'kube', 'vectors', 'pod.cbor'));
  await expect(page.getByText(/pod\.cbor: [\d.,]+ (byte|kB)/)).toBeVisible();
  await page.getByRole('button', { name: 'Decode', exact: true }).click();
  await expect(page.getByTestId('decode-media-type')).toHaveText('Decoded as application/cbor');
  await expect(page.getByTestId('document-text')).toContainText('kind: Pod');
  await saveScreen(page, 'decode-cbor');
  await page.getByRole('button', { name: 'Hex (raw bytes)' }).click();
  await expect(page.getByTestId('document-text')).toContainText('00000000  d9 d9 f7');
});

test('pasted JSON decodes, and a truncated body says what was expected and where', async ({ page }) => {
  await page.goto('./');
  const box = page.getByLabel('Body to decode');
  await box.fill('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"},"data":{"a":"1"}}');
  await page.getByRole('button', { name: 'Decode', exact: true }).click();
  await expect(page.getByTestId('decode-media-type')).toHaveText('Decoded as application/json');
  await expect(page.getByTestId('document-text')).toContainText('kind: ConfigMap');

  await box.fill('{"kind":"ConfigMap","metadata":{"name":');
  await page.getByRole('button', { name: 'Decode', exact: true }).click();
  await expect(page.getByTestId('decode-error')).toContainText('pasted text is not valid application/json');
});
