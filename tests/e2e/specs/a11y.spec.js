// Accessibility: axe-core (WCAG 2.1 A and AA rules) on every main screen, in the light and the dark
// theme and in the right-to-left (Persian) layout; no serious or critical violation. Everything here is reached the way a keyboard user
// would, where that is the point.
const { test, expect } = require('@playwright/test');
const AxeBuilder = require('@axe-core/playwright').default;
const { saveScreen } = require('./helpers');
// The Persian catalogue: names of controls in the right-to-left layout.
const fa = require('../../../i18n/fa.json');

/** The serious and critical violations on the page, as readable lines. */
async function violations(page, include) {
  let builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']);
  if (include) builder = builder.include(include);
  const results = await builder.analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id}: ${v.help} at ${n.target.join(' ')} (${n.failureSummary.split('\n').slice(1).join(' ')})`));
}

async function setTheme(page, theme) {
  await page.getByLabel('Theme').selectOption(theme);
  await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
}

for (const theme of ['light', 'dark']) {
  test.describe(`${theme} theme`, () => {
    test('the first screen, the decode tool and the keys dialogs', async ({ page }) => {
      await page.goto('./');
      await expect(page.getByTestId('cluster-version')).not.toHaveText('connecting…');
      await setTheme(page, theme);
      expect(await violations(page)).toEqual([]);
      await page.keyboard.press('?');
      await expect(page.getByRole('dialog', { name: 'Keys' })).toBeVisible();
      expect(await violations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await page.keyboard.press(':');
      await expect(page.getByRole('combobox', { name: 'Go to' })).toBeFocused();
      await page.keyboard.type('dep');
      await expect(page.getByTestId('goto-option').first()).toBeVisible();
      expect(await violations(page)).toEqual([]);
      await saveScreen(page, `a11y-goto-${theme}`);
    });

    test('a live collection with its timeline, and the same read by pages', async ({ page }) => {
      await page.goto('./?group=apps&version=v1&resource=deployments&namespace=demo');
      await setTheme(page, theme);
      await expect(page.getByTestId('live-state')).toContainText('watching');
      await expect(page.getByTestId('timeline').locator('li').first()).toBeVisible();
      expect(await violations(page)).toEqual([]);
      await page.getByTestId('mode-pages').click();
      await expect(page.getByTestId('response-status')).toHaveText('200 OK');
      expect(await violations(page)).toEqual([]);
      await page.getByRole('group', { name: 'Representation' }).getByRole('button', { name: 'YAML', exact: true }).click();
      await expect(page.getByTestId('document-text')).toContainText('kind: DeploymentList');
      expect(await violations(page)).toEqual([]);
      await saveScreen(page, `a11y-collection-${theme}`);
    });

    test('a pod list decoded from protobuf, and a custom resource that has no protobuf form', async ({ page }) => {
      await page.goto('./?group=&version=v1&resource=pods&namespace=demo&as=protobuf');
      await setTheme(page, theme);
      await expect(page.getByTestId('protobuf-decoded')).toBeVisible();
      expect(await violations(page)).toEqual([]);
      await page.goto('./?group=example.com&version=v1&resource=widgets&as=protobuf');
      await setTheme(page, theme);
      await expect(page.getByTestId('protobuf-not-served')).toBeVisible();
      expect(await violations(page)).toEqual([]);
      await saveScreen(page, `a11y-protobuf-custom-resource-${theme}`);
    });

    test('an object, its log, the editor and the wire inspector', async ({ page }) => {
      await page.goto('./?group=apps&version=v1&resource=deployments&namespace=demo&name=web');
      await setTheme(page, theme);
      await expect(page.getByTestId('object-title')).toHaveText('Deployment web');
      expect(await violations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      await expect(page.getByRole('textbox', { name: 'Object editor' })).toHaveValue(/kind: Deployment/);
      expect(await violations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Wire inspector' }).click();
      await expect(page.getByRole('complementary', { name: 'Wire inspector' })).toBeVisible();
      expect(await violations(page)).toEqual([]);
      await saveScreen(page, `a11y-editor-${theme}`);

      await page.goto('./?group=&version=v1&resource=pods&namespace=demo');
      await page.getByTestId('grid-row').first().locator('td').first().click();
      await page.getByRole('region', { name: 'Subresources' }).getByRole('button', { name: 'log', exact: true }).click();
      await expect(page.getByRole('region', { name: 'Pod log' }).getByTestId('log-state')).toContainText('lines read');
      expect(await violations(page)).toEqual([]);
    });

    test('field docs in place: the popover of the object view and the suggestions of the editor', async ({ page }) => {
      await page.goto('./?group=apps&version=v1&resource=deployments&namespace=demo&name=web');
      await setTheme(page, theme);
      await page.getByTestId('document-text').focus();
      await page.keyboard.press('ArrowDown');
      await expect(page.getByTestId('field-popover').getByTestId('field-docs-path')).toHaveText('kind');
      expect(await violations(page)).toEqual([]);
      await saveScreen(page, `a11y-field-docs-${theme}`);
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      const editor = page.getByRole('textbox', { name: 'Object editor' });
      await expect(editor).toHaveValue(/kind: Deployment/);
      await editor.evaluate((area) => {
        const end = area.value.indexOf('\n', area.value.indexOf('  replicas:'));
        area.focus();
        area.setSelectionRange(end, end);
      });
      await page.keyboard.press('Enter');
      await page.keyboard.type('  min');
      await expect(page.getByRole('listbox', { name: 'Suggestions' })).toBeVisible();
      expect(await violations(page)).toEqual([]);
      await saveScreen(page, `a11y-completion-${theme}`);
    });

    test('the Search screen with its results', async ({ page }) => {
      await page.goto('./?search=web');
      await setTheme(page, theme);
      const progress = page.getByRole('progressbar', { name: 'Search progress' });
      await expect(progress).toHaveAttribute('max', /\d+/);
      await expect(progress).toHaveAttribute('value', await progress.getAttribute('max'), { timeout: 30_000 });
      await expect(page.getByText('demo/web-config')).toBeVisible();
      expect(await violations(page)).toEqual([]);
    });

    test('the schema explorer with a field, a search and a comparison', async ({ page }) => {
      await page.goto('./?group=example.com&version=v1&resource=widgets&explain=spec&compare=v1beta1');
      await setTheme(page, theme);
      await expect(page.getByTestId('explain-field')).toHaveText('spec');
      await expect(page.getByTestId('explain-comparison')).toContainText('added');
      expect(await violations(page)).toEqual([]);
      await page.getByTestId('explain-search').fill('replicas');
      await expect(page.getByTestId('explain-search-status')).toContainText('match');
      expect(await violations(page)).toEqual([]);
      await saveScreen(page, `a11y-schema-${theme}`);
      await page.goto('./?explain=');
      await expect(page.getByTestId('explain-kinds').getByRole('link').first()).toBeVisible();
      expect(await violations(page)).toEqual([]);
    });

    test('the Access view', async ({ page }) => {
      await page.goto('./?namespace=demo&access=1');
      await setTheme(page, theme);
      await expect(page.getByTestId('access-rules')).toContainText('*.*');
      expect(await violations(page)).toEqual([]);
    });
  });
}

// The right-to-left layout: Persian, chosen before the page loads (the remembered setting), in both
// themes. The screens are reached by their URLs and test ids: their words are Persian here.
for (const theme of ['light', 'dark']) {
  test.describe(`Persian (right to left), ${theme} theme`, () => {
    test.beforeEach(async ({ page }) => {
      await page.addInitScript(() => localStorage.setItem('kube-api-explorer.language', 'fa'));
    });

    // Each page load: the theme is chosen again (it is the page's, not remembered across loads).
    async function persian(page, url) {
      await page.goto(url);
      await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
      await expect(page.locator('html')).toHaveAttribute('lang', 'fa');
      await page.locator('.topbar__theme select').selectOption(theme);
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    }

    test('the first screen and a live collection', async ({ page }) => {
      await persian(page, './');
      await expect(page.getByTestId('git-version')).toBeVisible();
      expect(await violations(page)).toEqual([]);
      await persian(page, './?group=apps&version=v1&resource=deployments&namespace=demo');
      await expect(page.getByTestId('timeline').locator('li').first()).toBeVisible();
      expect(await violations(page)).toEqual([]);
      await saveScreen(page, `a11y-rtl-collection-${theme}`);
    });

    test('an object with its editor, and the Search and Access screens', async ({ page }) => {
      await persian(page, './?group=apps&version=v1&resource=deployments&namespace=demo&name=web');
      await expect(page.getByTestId('object-title')).toHaveText('Deployment web');
      expect(await violations(page)).toEqual([]);
      await page.locator('.object__actions button').first().click();
      await expect(page.getByTestId('object-editor')).toBeVisible();
      expect(await violations(page)).toEqual([]);
      await persian(page, './?search=web');
      await expect(page.getByTestId('search-hit').first()).toBeVisible({ timeout: 30_000 });
      expect(await violations(page)).toEqual([]);
      await persian(page, './?namespace=demo&access=1');
      await expect(page.getByTestId('access-rules')).toContainText('*.*');
      expect(await violations(page)).toEqual([]);
    });

    test('the schema explorer, the keys and go-to dialogs, a pod log and the wire inspector', async ({ page }) => {
      await persian(page, './?group=example.com&version=v1&resource=widgets&explain=spec&compare=v1beta1');
      await expect(page.getByTestId('explain-field')).toHaveText('spec');
      await expect(page.getByTestId('explain-comparison').locator('tr').nth(1)).toBeVisible();
      expect(await violations(page)).toEqual([]);
      await page.getByTestId('explain-search').fill('replicas');
      await expect(page.getByTestId('explain-search-status')).not.toBeEmpty();
      expect(await violations(page)).toEqual([]);
      await saveScreen(page, `a11y-rtl-schema-${theme}`);

      await persian(page, './?group=&version=v1&resource=pods&namespace=demo');
      await expect(page.getByTestId('grid-row').first()).toBeVisible();
      await page.keyboard.press('?');
      await expect(page.getByRole('dialog', { name: fa.Keys })).toBeVisible();
      expect(await violations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await page.keyboard.press(':');
      await expect(page.getByRole('combobox', { name: fa.GoTo })).toBeFocused();
      await page.keyboard.type('dep');
      await expect(page.getByTestId('goto-option').first()).toBeVisible();
      expect(await violations(page)).toEqual([]);
      await page.keyboard.press('Escape');

      await page.getByTestId('grid-row').first().locator('td').first().click();
      await page.getByRole('region', { name: fa.Subresources }).getByRole('button', { name: 'log', exact: true }).click();
      const log = page.getByRole('region', { name: fa.PodLog });
      await expect(log.getByTestId('log-text')).not.toBeEmpty();
      expect(await violations(page)).toEqual([]);
      await page.getByRole('button', { name: fa.WireInspector }).click();
      await expect(page.getByRole('complementary', { name: fa.WireInspector })).toBeVisible();
      expect(await violations(page)).toEqual([]);
      await saveScreen(page, `a11y-rtl-log-inspector-${theme}`);
    });
  });
}

test('every control is reached with Tab and shows a visible focus ring', async ({ page }) => {
  await page.goto('./?group=&version=v1&resource=pods&namespace=demo');
  await expect(page.getByTestId('live-state')).toContainText('watching');
  const seen = new Set();
  for (let i = 0; i < 200 && !(seen.size > 30 && [...seen].some((x) => x.includes('Pages'))); i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const e = document.activeElement;
      if (!e || e === document.body) return null;
      const style = getComputedStyle(e);
      const ring = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
      return { tag: e.tagName, label: e.getAttribute('aria-label') || e.textContent.trim().slice(0, 30), ring };
    });
    if (!focused) continue;
    expect(focused.ring, `${focused.tag} "${focused.label}" shows where the focus is`).toBe(true);
    seen.add(`${focused.tag} ${focused.label}`);
  }
  // The sidebar, the toolbar and the rows are all on the way.
  expect([...seen].some((s) => s.startsWith('INPUT Filter resource types'))).toBe(true);
  expect([...seen].some((s) => s.includes('Pages'))).toBe(true);
  expect(seen.size).toBeGreaterThan(30);
});
