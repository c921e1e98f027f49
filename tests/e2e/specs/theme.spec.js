// Light and dark themes from the same tokens: the system's preference by default, or a choice.
const { test, expect } = require('@playwright/test');
const { saveScreen } = require('./helpers');

const background = (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
const LIGHT = 'rgb(246, 248, 250)';
const DARK = 'rgb(13, 17, 23)';

test('the system preference decides until the person picks a theme', async ({ page }) => {
  // Each system theme, followed as it changes, while the person has picked none.
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto('./?group=&version=v1&resource=pods');
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  await expect(page.getByLabel('Theme')).toHaveValue('system');
  await expect.poll(() => background(page)).toBe(LIGHT);
  await saveScreen(page, 'pods-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect.poll(() => background(page)).toBe(DARK);
  await saveScreen(page, 'pods-dark');
  // A picked theme wins over the system's, either way.
  await page.getByLabel('Theme').selectOption('light');
  await expect.poll(() => background(page)).toBe(LIGHT);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByLabel('Theme').selectOption('dark');
  await expect.poll(() => background(page)).toBe(DARK);
  // Back to the system's.
  await page.getByLabel('Theme').selectOption('system');
  await expect.poll(() => background(page)).toBe(LIGHT);
});
