// Languages (issue #20 item 6): the switch in the top bar, each language's file fetched only when
// chosen, the choice remembered across a reload, the browser's languages picked at first, Persian
// laid out right to left with YAML and names left to right, and English kept with a message when
// a language file cannot be read.
const fs = require('node:fs');
const path = require('node:path');
const { test, expect } = require('@playwright/test');
const { saveScreen, wwwUrl, openEditor } = require('./helpers');

/** A language's strings, from the file the app fetches. */
function strings(tag) {
  return JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'i18n', `${tag}.json`), 'utf8'));
}

/** The language files the page has asked for so far. */
function languageRequests(page) {
  const asked = [];
  page.on('request', (request) => {
    const match = new URL(request.url()).pathname.match(/\/i18n\/([^/]+)\.json$/);
    if (match) asked.push(match[1]);
  });
  return asked;
}

/** The requests for the on-demand part that fetches and reads a language file. */
function readerRequests(page) {
  const asked = [];
  page.on('request', (request) => {
    if (/\/split_language_file\.wasm$/.test(new URL(request.url()).pathname)) asked.push(request.url());
  });
  return asked;
}

/** `template` with each `{name}` filled from `values`, as the app's `i18n::fill` does. */
function fill(template, values) {
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/**
 * A value inside a translated sentence (a name, an operator, a number), as the app fills it:
 * between LEFT-TO-RIGHT ISOLATE and POP DIRECTIONAL ISOLATE, so that it keeps its order in
 * Persian (`i18n::ltr_isolate`). English has no isolates.
 */
function ltr(value) {
  return `\u2066${value}\u2069`;
}

/** The left edge of the first occurrence of each of `needles` in `locator`'s text, in pixels. */
function leftEdges(locator, needles) {
  return locator.evaluate((element, needles) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    const nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    return needles.map((needle) => {
      const node = nodes.find((n) => n.data.includes(needle));
      if (!node) return null;
      const range = document.createRange();
      const at = node.data.indexOf(needle);
      range.setStart(node, at);
      range.setEnd(node, at + needle.length);
      return range.getBoundingClientRect().left;
    });
  }, needles);
}

async function choose(page, tag) {
  await page.getByTestId('language').selectOption(tag);
  await expect(page.locator('html')).toHaveAttribute('lang', tag);
}

test('English by default, and no language file is fetched until one is chosen', async ({ page }) => {
  const asked = languageRequests(page);
  const reader = readerRequests(page);
  await page.goto('./');
  await expect(page.getByTestId('git-version')).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
  await expect(page.getByTestId('language')).toHaveValue('en');
  await expect(page.locator('#version-heading')).toHaveText('Server version');
  expect(asked).toEqual([]);
  // Nor the part that fetches and reads one: English needs neither.
  expect(reader).toEqual([]);
});

for (const tag of ['uk', 'zh-CN', 'fa']) {
  test(`choosing ${tag} translates the page, fetches its file once, and survives a reload`, async ({ page }) => {
    const asked = languageRequests(page);
    const reader = readerRequests(page);
    const text = strings(tag);
    await page.goto('./');
    await expect(page.locator('#version-heading')).toHaveText('Server version');
    await choose(page, tag);
    await expect(page.locator('#version-heading')).toHaveText(text.ServerVersion);
    await expect(page.getByRole('navigation').getByRole('searchbox')).toHaveAttribute('placeholder', text.FilterResourceTypesPlaceholder);
    await expect(page.getByTestId('language')).toHaveValue(tag);
    expect(asked).toEqual([tag]);

    // Back to English and again: the file is read once.
    await choose(page, 'en');
    await expect(page.locator('#version-heading')).toHaveText('Server version');
    await choose(page, tag);
    await expect(page.locator('#version-heading')).toHaveText(text.ServerVersion);
    expect(asked).toEqual([tag]);
    expect(reader.length).toBe(1);

    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('lang', tag);
    await expect(page.locator('#version-heading')).toHaveText(text.ServerVersion);
    await expect(page.getByTestId('language')).toHaveValue(tag);
  });
}

test('Persian lays the page out right to left; YAML, URLs and names stay left to right', async ({ page }) => {
  const fa = strings('fa');
  await page.goto('./?group=apps&version=v1&resource=deployments&namespace=demo&name=web');
  await expect(page.getByTestId('object-title')).toBeVisible();
  await choose(page, 'fa');
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  const direction = (locator) => locator.evaluate((e) => getComputedStyle(e).direction);
  expect(await direction(page.locator('body'))).toBe('rtl');
  await expect(page.getByTestId('document-text')).toContainText('kind: Deployment');
  expect(await direction(page.getByTestId('document-text'))).toBe('ltr');
  expect(await direction(page.getByTestId('api-base'))).toBe('ltr');
  // The sidebar is on the right: its box starts right of the main area's.
  const sidebar = await page.getByRole('navigation', { name: fa.ResourceTypes }).boundingBox();
  const main = await page.locator('.layout__main').boundingBox();
  expect(sidebar.x).toBeGreaterThan(main.x);
  await saveScreen(page, 'i18n-persian-object');

  await page.goto('./?group=apps&version=v1&resource=deployments&namespace=demo');
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await saveScreen(page, 'i18n-persian-collection');
});

test.describe('a browser that prefers Ukrainian', () => {
  test.use({ locale: 'uk-UA' });
  test('opens in Ukrainian without a choice', async ({ page }) => {
    await page.goto('./');
    await expect(page.locator('html')).toHaveAttribute('lang', 'uk');
    await expect(page.locator('#version-heading')).toHaveText(strings('uk').ServerVersion);
  });
});

test('a language file that cannot be fetched leaves English and says why', async ({ page }) => {
  await page.route('**/i18n/fa.json', (route) => route.fulfill({ status: 404, body: 'not here' }));
  await page.goto('./');
  await expect(page.locator('#version-heading')).toHaveText('Server version');
  await page.getByTestId('language').selectOption('fa');
  const problem = page.getByTestId('language-problem');
  await expect(problem).toContainText('could not be loaded');
  await expect(problem).toContainText('HTTP 404');
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(page.locator('#version-heading')).toHaveText('Server version');
  await expect(page.getByTestId('language')).toHaveValue('en');
});

test('a broken language file leaves English and says why', async ({ page }) => {
  await page.route('**/i18n/uk.json', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{"Cluster": "Кластер"}' }));
  await page.goto('./');
  await page.getByTestId('language').selectOption('uk');
  await expect(page.getByTestId('language-problem')).toContainText('has no string for');
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
});

test('the bundle served under a path prefix fetches its language file beside its own script', async ({ page }) => {
  const asked = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/fa.json')) asked.push(new URL(request.url()).pathname);
  });
  await page.goto(wwwUrl());
  await expect(page.getByTestId('git-version')).toBeVisible();
  await choose(page, 'fa');
  await expect(page.locator('#version-heading')).toHaveText(strings('fa').ServerVersion);
  expect(asked).toEqual(['/explorer/i18n/fa.json']);
});

test('texts made outside the views: a selector error, the live state, the search description', async ({ page }) => {
  const uk = strings('uk');
  const fa = strings('fa');
  await page.goto('./?group=&version=v1&resource=pods&namespace=demo');
  await expect(page.getByTestId('live-state')).toContainText('watching');
  await choose(page, 'uk');
  // The live view's connection state, made by the reflector (api::reflector), in Ukrainian.
  await expect(page.getByTestId('live-state')).toContainText(uk.StateWatching);

  // A label selector our own parser refuses (api::selector): translated, the typed text and the
  // character it points at kept as they are.
  await page.getByLabel(uk.LabelSelector).fill('app in (');
  await page.getByRole('button', { name: uk.ApplySelectors }).click();
  const problem = page.getByTestId('selector-problem');
  const said = (t) => fill(t.SelectorProblem, {
    name: t.LabelSelector,
    error: fill(t.SelectorErrorAt, { message: fill(t.SelectorExpectedSet, { found: ltr('(') }), at: ltr(7) }),
  });
  await expect(problem).toContainText(said(uk));
  await expect(problem).not.toContainText('unable to parse');

  // Switching the language rewords the same error and the state in place.
  await choose(page, 'fa');
  await expect(problem).toContainText(said(fa));
  await expect(page.getByTestId('live-state')).toContainText(fa.StateWatching);
  await saveScreen(page, 'i18n-persian-selector-error');

  // The operators the parser expected, in a Persian sentence: one left-to-right run, isolated, so
  // that '!' comes before 'in' and 'notin' as written (unisolated, the neutral '!' was laid out
  // right of "'in'، 'notin'", and the list read backwards).
  await page.getByLabel(fa.LabelSelector).fill('=web');
  await page.getByRole('button', { name: fa.ApplySelectors }).click();
  await expect(problem).toContainText(fill(fa.SelectorErrorAt, {
    message: fill(fa.SelectorExpectedOperator, {
      found: ltr('='),
      operators: ltr("'!', 'in', 'notin', '=', '==', '!=', '>'"),
      last: ltr("'<'"),
    }),
    at: ltr(1),
  }));
  const [not, isIn, notIn, greater] = await leftEdges(problem, ["'!'", "'in'", "'notin'", "'>'"]);
  expect(not).toBeLessThan(isIn);
  expect(isIn).toBeLessThan(notIn);
  expect(notIn).toBeLessThan(greater);
  expect(await problem.evaluate((e) => getComputedStyle(e).direction)).toBe('rtl');
  await saveScreen(page, 'i18n-persian-selector-operators');

  // The Search screen's description of the query (model::search).
  await page.goto('./?search=web&namespace=demo');
  const describes = page.getByTestId('search-describes');
  const names = fill(fa.SearchNamesContaining, { name: ltr('web') });
  await expect(describes).toHaveText(fill(fa.SearchInNamespace, { what: names, namespace: ltr('demo') }));
  // A bad label selector there: the search's own words around the parser's.
  await page.goto('./?search=web&searchLabels=%3Dweb');
  await expect(page.getByTestId('search-problem')).toContainText(fill(fa.SearchBadLabelSelector, {
    selector: ltr('=web'),
    error: fill(fa.SelectorErrorAt, {
      message: fill(fa.SelectorExpectedOperator, {
        found: ltr('='),
        operators: ltr("'!', 'in', 'notin', '=', '==', '!=', '>'"),
        last: ltr("'<'"),
      }),
      at: ltr(1),
    }),
  }));
  await saveScreen(page, 'i18n-persian-search-problem');
});

test('a write that was not sent says why in the language shown, and rewords it when the language changes', async ({ page }) => {
  const uk = strings('uk');
  const fa = strings('fa');
  await page.goto('./?group=example.com&version=v1&resource=widgets&namespace=demo&name=w-05');
  await openEditor(page, 'Widget');
  await choose(page, 'uk');
  // The network refuses the dry run (the browser's fetch fails): client::answer's problem, made
  // from the client's error outside the views, shown in the write view.
  await page.route(/\/apis\/example\.com\/v1\/namespaces\/demo\/widgets\/w-05/, (route) =>
    route.request().method() === 'GET' ? route.continue() : route.abort('connectionrefused'));
  await page.getByRole('button', { name: uk.DryRun, exact: true }).click();
  const before = (template) => template.slice(0, template.indexOf('{url}'));
  const problem = page.getByRole('alert').filter({ hasText: before(uk.CouldNotReach) });
  await expect(problem).toBeVisible();
  await expect(problem).toContainText('/apis/example.com/v1/namespaces/demo/widgets/w-05');
  await expect(problem).not.toContainText('could not reach');
  // Switching the language rewords the same answer in place.
  await choose(page, 'fa');
  await expect(page.getByRole('alert').filter({ hasText: before(fa.CouldNotReach) })).toBeVisible();
  await saveScreen(page, 'i18n-persian-write-not-sent');
});
