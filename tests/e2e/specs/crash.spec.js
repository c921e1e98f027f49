// A panic, if one ever happens, is shown to the user (src/ui/crash.rs): a real panic of the app's
// wasm (`panicForTests`, a test hook only the page's own script can call, panicking through the
// same hook as any panic) leaves an alert in the interface's language with the panic's message and
// a Reload link to the address, instead of a dead page; the rest of the explorer is inert. The
// link works without the wasm: it loads the same view again. axe finds no serious violation on the
// alert, in the light and the dark theme.
const { test, expect } = require('@playwright/test');
const AxeBuilder = require('@axe-core/playwright').default;
const { saveScreen } = require('./helpers');
const fa = require('../../../i18n/fa.json');

const VIEW = './?group=&version=v1&resource=pods&namespace=demo&watch=0';

async function violations(page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id}: ${v.help} at ${n.target.join(' ')}`));
}

/** Panics inside the wasm: the call traps (the instance is dead), as a real panic would. */
async function panic(page, message) {
  return page.evaluate((text) => {
    try {
      window.wasmBindings.panicForTests(text);
      return 'returned';
    } catch (error) {
      return String(error);
    }
  }, message);
}

for (const theme of ['light', 'dark']) {
  test(`a panic shows an alert with a Reload link, not a dead page (${theme} theme)`, async ({ page }) => {
    const logged = [];
    page.on('console', (message) => logged.push(message.text()));
    await page.goto(VIEW);
    await page.getByLabel('Theme').selectOption(theme);
    await expect(page.getByTestId('grid-row').first()).toBeVisible();
    const address = page.url();

    expect(await panic(page, 'a test panic from crash.spec.js')).toMatch(/RuntimeError: unreachable/);
    const alert = page.getByRole('alert').filter({ hasText: 'The explorer stopped working' });
    await expect(alert).toBeVisible();
    await expect(alert).toContainText('Reload the page to start again');
    // The focus is on the way out.
    const reload = alert.getByRole('link', { name: 'Reload the page' });
    await expect(reload).toBeFocused();
    await expect(reload).toHaveAttribute('href', address);
    // The panic's message, as console_error_panic_hook logs it too, for a bug report.
    await alert.getByText('Details of the error').click();
    await expect(alert.getByTestId('crash-message')).toContainText('a test panic from crash.spec.js');
    expect(logged.some((line) => line.includes('panicked at') && line.includes('a test panic'))).toBe(true);
    // The dead explorer's controls do nothing any more: they are inert.
    expect(await page.getByTestId('mode-live').evaluate((button) => button.closest('[inert]') !== null)).toBe(true);
    expect(await violations(page)).toEqual([]);
    await saveScreen(page, `crash-alert-${theme}`);

    // The link loads the same view again, with a working explorer.
    await reload.click();
    await expect(page.getByTestId('grid-row').first()).toBeVisible();
    await expect(page.getByTestId('crash-alert')).toHaveCount(0);
    expect(page.url()).toBe(address);
  });
}

test('the alert speaks the language of the interface', async ({ page }) => {
  await page.goto(VIEW);
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  // Persian, right to left, is the language at the panic.
  await page.getByTestId('language').selectOption('fa');
  await expect(page.locator('html')).toHaveAttribute('lang', 'fa');
  await expect(page.getByTestId('mode-live')).toHaveText(fa.Live);
  await panic(page, 'a test panic in Persian');
  const alert = page.getByRole('alert').filter({ hasText: fa.CrashTitle });
  await expect(alert).toBeVisible();
  await expect(alert).toContainText(fa.CrashExplanation);
  await expect(alert.getByRole('link', { name: fa.CrashReload })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  expect(await violations(page)).toEqual([]);
  await saveScreen(page, 'crash-alert-fa');
});
