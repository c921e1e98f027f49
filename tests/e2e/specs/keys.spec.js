// The keyboard: the go-to box (`:` and Ctrl-K) opens types, namespaces and objects by typing;
// rows move with j/k and the arrows, open with Enter, `e` edits and `l` shows the log; `/`
// filters, `?` lists the keys; nothing fires while the user types in a field.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

async function names(request, path) {
  const list = await (await request.get(`${simUrl()}${path}`, { headers: { Accept: 'application/json' } })).json();
  return list.items.map((i) => i.metadata.name);
}

test('the go-to box opens a type by short name, a namespace, and an object by type and name', async ({ page }) => {
  await page.goto('./');
  await expect(page.getByTestId('cluster-version')).not.toHaveText('connecting…');
  await page.keyboard.press(':');
  const box = page.getByRole('dialog', { name: 'Go to' });
  await expect(box).toBeVisible();
  const input = box.getByRole('combobox', { name: 'Go to' });
  await expect(input).toBeFocused();
  await page.keyboard.type('deploy');
  const options = box.getByTestId('goto-option');
  await expect(options.first()).toContainText('deployments');
  await expect(options.first()).toContainText('Deployment · apps/v1');
  await expect(options.first()).toHaveAttribute('aria-selected', 'true');
  await saveScreen(page, 'goto-type');
  await page.keyboard.press('Enter');
  await expect(box).toHaveCount(0);
  await expect(page).toHaveURL(/group=apps&version=v1&resource=deployments/);

  // Ctrl-K works even from a field; a namespace by name.
  await page.getByLabel('Label selector').click();
  await page.keyboard.press('Control+k');
  await expect(input).toBeFocused();
  await page.keyboard.type('shop');
  await expect(options.filter({ hasText: 'namespace' }).first()).toContainText('shop');
  await options.filter({ hasText: 'namespace' }).first().click();
  await expect(page).toHaveURL(/namespace=shop/);
  await expect(page).toHaveURL(/resource=deployments/);

  // The focus went back to the field: `:` would be text there, Ctrl-K is not.
  await expect(page.getByLabel('Label selector')).toBeFocused();
  // A type, then a name: the objects of that type (read as a metadata-only list).
  await page.keyboard.press('Control+k');
  await expect(input).toBeFocused();
  await page.keyboard.type('deploy ca');
  await expect(options.first()).toContainText('cart');
  await expect(options.first()).toContainText('Deployment in shop');
  await saveScreen(page, 'goto-object');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('object-title')).toHaveText('Deployment cart');

  // Arrows move the choice; Esc closes and gives the focus back.
  await page.keyboard.press(':');
  await expect(input).toBeFocused();
  await page.keyboard.type('config');
  await expect(options.first()).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowDown');
  await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Escape');
  await expect(box).toHaveCount(0);
  await page.keyboard.press(':');
  await expect(input).toBeFocused();
  await page.keyboard.type('nosuchthing');
  await expect(box).toContainText('Nothing matches.');
  await page.keyboard.type(' web');
  await expect(box.getByTestId('goto-note')).toHaveText('no resource type is called nosuchthing');
});

test('keys typed at once after : are kept while the box loads, and no view takes them', async ({ page }) => {
  // The box's part held back, as on a slow link: `:deploy web` typed as a k9s user types it.
  await page.route(/split_goto[^/]*\.wasm$/, async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await route.continue();
  });
  await page.goto('./?group=&version=v1&resource=pods&namespace=demo');
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  // A row at the cursor, so that the `e` and `l` in "deploy" would open its editor and its log if
  // the collection took them.
  await page.keyboard.press('j');
  await expect(page.locator('.grid__row--cursor')).toHaveCount(1);
  await page.keyboard.press(':');
  await page.keyboard.type('deploy wez');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('b');
  const box = page.getByRole('dialog', { name: 'Go to' });
  const input = box.getByRole('combobox', { name: 'Go to' });
  await expect(input).toHaveValue('deploy web');
  await expect(input).toBeFocused();
  const options = box.getByTestId('goto-option');
  await expect(options.first()).toContainText('Deployment in demo');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('object-title')).toHaveText('Deployment web');
});

test('rows move with j, k and the arrows; Enter opens, l opens the log and e the editor', async ({ page, request }) => {
  const pods = (await names(request, '/api/v1/namespaces/demo/pods')).sort();
  await page.goto('./?group=&version=v1&resource=pods&namespace=demo');
  await expect(page.getByTestId('live-state')).toContainText('watching');
  await expect(page.getByTestId('grid-row')).toHaveCount(pods.length);
  const rows = page.getByTestId('grid-row');
  await page.keyboard.press('j');
  await expect(rows.nth(0)).toBeFocused();
  await expect(rows.nth(0)).toHaveClass(/grid__row--cursor/);
  await page.keyboard.press('j');
  await expect(rows.nth(1)).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(rows.nth(2)).toBeFocused();
  await page.keyboard.press('k');
  await page.keyboard.press('ArrowUp');
  await expect(rows.nth(0)).toBeFocused();
  await saveScreen(page, 'keys-row-cursor');
  const first = (await rows.nth(0).locator('td').first().textContent()).trim();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${first}`);
  await page.goBack();
  await expect(rows.first()).toBeVisible();

  await page.keyboard.press('j');
  await page.keyboard.press('l');
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${first}`);
  await expect(page.getByRole('region', { name: 'Pod log' }).getByTestId('log-text')).not.toBeEmpty();
  await expect(page.getByRole('region', { name: 'Pod log' }).getByTestId('log-state')).toContainText('lines read');

  await page.goto('./?group=apps&version=v1&resource=deployments&namespace=demo');
  await expect(page.getByTestId('live-state')).toContainText('watching');
  await expect(rows.first()).toBeVisible();
  await page.keyboard.press('j');
  const deployment = (await rows.nth(0).locator('td').first().textContent()).trim();
  await page.keyboard.press('e');
  await expect(page.getByTestId('object-title')).toHaveText(`Deployment ${deployment}`);
  await expect(page.getByRole('textbox', { name: 'Object editor' })).toHaveValue(/kind: Deployment/);
});

test('? lists the keys, / filters the rows, and no key fires while typing in a field', async ({ page }) => {
  await page.goto('./?group=&version=v1&resource=pods&namespace=demo');
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Keys' });
  await expect(help).toBeVisible();
  await expect(help).toContainText('Go to a resource type');
  await expect(help.getByRole('button', { name: 'Close' })).toBeFocused();
  await saveScreen(page, 'keys-help');
  // j does nothing behind a dialog.
  await page.keyboard.press('j');
  await expect(page.locator('.grid__row--cursor')).toHaveCount(0);
  await page.keyboard.press('Escape');
  await expect(help).toHaveCount(0);

  await page.keyboard.press('/');
  const filter = page.getByRole('searchbox', { name: 'Quick filter' });
  await expect(filter).toBeFocused();
  // Typed into the field, the keys are text.
  await page.keyboard.type('j:?e');
  await expect(filter).toHaveValue('j:?e');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.locator('.grid__row--cursor')).toHaveCount(0);
  await expect(page.getByTestId('object-title')).toHaveCount(0);
});
