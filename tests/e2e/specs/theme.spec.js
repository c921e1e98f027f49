// Light and dark themes from the same tokens: the system's preference by default, or a choice.
const { test, expect } = require('@playwright/test');
const { saveScreen } = require('./helpers');

const background = (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

test('the system preference decides until the person picks a theme', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('./?group=&version=v1&resource=pods');
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  expect(await background(page)).toBe('rgb(13, 17, 23)');
  await saveScreen(page, 'pods-dark');
  await page.getByLabel('Theme').selectOption('light');
  expect(await background(page)).toBe('rgb(246, 248, 250)');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByLabel('Theme').selectOption('dark');
  expect(await background(page)).toBe('rgb(13, 17, 23)');
});
