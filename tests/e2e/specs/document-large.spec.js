// A long document (more lines than the explorer draws at once): only the lines in view are in
// the page, the box scrolls through all of them, a block folds, and a search finds a line
// anywhere in the text and scrolls to it.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

const KEYS = 6000;

/** Creates ConfigMap `name` in demo with KEYS keys (`key-0000: value 0`, ...); answers its name. */
async function createLongConfigMap(request, name) {
  const data = {};
  for (let i = 0; i < KEYS; i++) data[`key-${String(i).padStart(4, '0')}`] = `value ${i}`;
  const created = await request.post(`${simUrl()}/api/v1/namespaces/demo/configmaps`, {
    data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data },
  });
  expect(created.status()).toBe(201);
  return name;
}

test('a document of thousands of lines draws only what is in view, and scrolls, folds and searches all of it', async ({ page, request }) => {
  const name = await createLongConfigMap(request, `big-doc-${Date.now()}`);
  try {
    await page.goto(`./?group=&version=v1&resource=configmaps&namespace=demo&name=${name}`);
    const doc = page.getByTestId('document-text');
    await doc.scrollIntoViewIfNeeded();
    await expect(page.getByTestId('document-virtual-note')).toContainText(/^6,?0\d\d lines: only the lines in view are drawn/);
    await expect(doc.locator('.code__line[data-line="1"]')).toBeVisible();
    const drawn = await doc.locator('.code__line').count();
    expect(drawn).toBeGreaterThan(10);
    expect(drawn).toBeLessThan(200);

    // Scrolled to the end: the last key is drawn, and still only a window of lines.
    await doc.evaluate((el) => { el.scrollTop = el.scrollHeight; });
    await expect(doc.locator('.code__line', { hasText: 'key-5999: value 5999' })).toBeInViewport();
    expect(await doc.locator('.code__line').count()).toBeLessThan(200);
    await expect(doc.locator('.code__line[data-line="1"]')).toHaveCount(0);

    // A search anywhere in the text scrolls to its line and marks it.
    const search = page.getByTestId('document-search');
    await search.fill('KEY-4321');
    await search.press('Enter');
    await expect(page.getByTestId('document-search-status')).toHaveText('1 of 1 matching lines');
    const match = doc.locator('.code__line--match');
    await expect(match).toHaveText('key-4321: value 4321');
    await expect(match).toBeInViewport();
    await saveScreen(page, 'document-virtual-search');
    await search.fill('value 12');
    await search.press('Enter');
    // value 12, 120-129, 1200-1299
    await expect(page.getByTestId('document-search-status')).toHaveText('1 of 111 matching lines');
    await page.getByRole('button', { name: 'Next match' }).click();
    await expect(page.getByTestId('document-search-status')).toHaveText('2 of 111 matching lines');
    await expect(match).toHaveText('key-0120: value 120');

    // Folding the data block leaves a short document; the search unfolds what hides a match.
    await doc.evaluate((el) => { el.scrollTop = 0; });
    const number = await doc.locator('.code__line').filter({ hasText: /^data:$/ }).getAttribute('data-line');
    const dataLine = doc.locator(`.code__line[data-line="${number}"]`);
    await dataLine.getByRole('button').click();
    await expect(dataLine.locator('.code__folded')).toHaveText(` … ${KEYS} lines`);
    expect(await doc.evaluate((el) => el.scrollHeight)).toBeLessThan(1000);
    await expect(doc.locator('.code__line', { hasText: 'key-0000' })).toHaveCount(0);
    await saveScreen(page, 'document-virtual-folded');
    await page.getByRole('button', { name: 'Next match' }).click();
    await expect(page.getByTestId('document-search-status')).toHaveText('3 of 111 matching lines');
    await expect(match).toHaveText('key-0121: value 121');
    await expect(match).toBeInViewport();
  } finally {
    await request.delete(`${simUrl()}/api/v1/namespaces/demo/configmaps/${name}`);
  }
});

test('when a long document is replaced (load all joins the pages), the lines in view are the new text', async ({ page, request }) => {
  // A namespace of its own: a first page that is long (one big ConfigMap), then a second page.
  const ns = `joined-${Date.now()}`;
  expect((await request.post(`${simUrl()}/api/v1/namespaces`, { data: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })).status()).toBe(201);
  const data = {};
  for (let i = 0; i < 5000; i++) data[`key-${String(i).padStart(4, '0')}`] = `value ${i}`;
  for (const [name, body] of [['a-big', data], ['b-small', { k: 'v' }]]) {
    const created = await request.post(`${simUrl()}/api/v1/namespaces/${ns}/configmaps`, {
      data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: body },
    });
    expect(created.status()).toBe(201);
  }
  try {
    await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${ns}&as=yaml&limit=1`);
    const doc = page.getByTestId('document-text');
    await expect(page.getByTestId('document-virtual-note')).toContainText(/^5,?0\d\d lines/);
    // The first page's list metadata is drawn: its continue token.
    await expect(doc.locator('.code__line', { hasText: 'continue:' })).toHaveCount(1);
    await page.getByRole('button', { name: 'Load all pages' }).click();
    await expect(page.getByTestId('load-all-progress')).toHaveText('All 2 loaded');
    // The joined list has no continue token, and the lines drawn at the top say so.
    await expect(doc.locator('.code__line', { hasText: 'continue:' })).toHaveCount(0);
    await expect(doc.locator('.code__line[data-line="1"]')).toBeVisible();
    const search = page.getByTestId('document-search');
    await search.fill('b-small');
    await search.press('Enter');
    await expect(doc.locator('.code__line--match')).toContainText('name: b-small');
  } finally {
    await request.delete(`${simUrl()}/api/v1/namespaces/${ns}`);
  }
});

// As YAML the page is decoded whole; as JSON and CBOR it is read lazily (its items stay bytes of
// the body until they are written): the view is the same.
for (const as of ['yaml', 'json', 'cbor']) test(`a long list (${as}) is written item by item: the items in view only, with search, folds and both formats over all of them`, async ({ page, request }) => {
  const ns = `items-${as}-${Date.now()}`;
  expect((await request.post(`${simUrl()}/api/v1/namespaces`, { data: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })).status()).toBe(201);
  const COUNT = 120;
  const name = (i) => `cm-${String(i).padStart(3, '0')}`;
  for (let i = 0; i < COUNT; i++) {
    const data = { index: String(i) };
    // Items of different heights: the estimate of an item not yet written is off.
    for (let k = 0; k < i % 7; k++) data[`extra-${k}`] = `x${k}`;
    const created = await request.post(`${simUrl()}/api/v1/namespaces/${ns}/configmaps`, {
      data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name(i) }, data },
    });
    expect(created.status()).toBe(201);
  }
  try {
    await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${ns}&as=${as}`);
    const doc = page.getByTestId('document-text');
    await doc.scrollIntoViewIfNeeded();
    const note = page.getByTestId('document-virtual-note');
    await expect(note).toContainText(/^120 items, about [\d,]+ lines: only the items in view are written and drawn/);
    const written = async () => Number(await doc.getAttribute('data-items-written'));
    expect(await written()).toBeGreaterThan(0);
    expect(await written()).toBeLessThan(40);
    await expect(doc.locator('.code__line', { hasText: /^items:$/ })).toHaveCount(1);
    await expect(doc.locator('.code__line', { hasText: `name: ${name(0)}` })).toBeVisible();

    // The end of the list: its last item, and still only the items around it written.
    await doc.evaluate((el) => { el.scrollTop = el.scrollHeight; });
    await expect(doc.locator('.code__line', { hasText: `name: ${name(COUNT - 1)}` })).toBeInViewport();
    expect(await written()).toBeLessThan(80);
    await expect(doc.locator('.code__line', { hasText: `name: ${name(0)}` })).toHaveCount(0);

    // A search reads every item; the line count is then exact.
    const search = page.getByTestId('document-search');
    await search.fill(`NAME: ${name(77)}`);
    await search.press('Enter');
    await expect(page.getByTestId('document-search-status')).toHaveText('1 of 1 matching lines');
    const match = doc.locator('.code__line--match');
    await expect(match).toHaveText(new RegExp(`^\\s+name: ${name(77)}$`));
    await expect(match).toBeInViewport();
    await expect(note).toContainText(/^120 items, [\d,]+ lines: only the items in view/);
    await search.fill('extra-5');
    await search.press('Enter');
    // Items 6, 13, ... 118 have extra-0..5: 17 of them.
    await expect(page.getByTestId('document-search-status')).toHaveText('1 of 17 matching lines');
    await expect(match).toHaveText(/^\s+extra-5: x5$/);

    // An item folds whole from its first line.
    await doc.evaluate((el) => { el.scrollTop = 0; });
    // The top is drawn before its first item is folded (a click on a line of the old window
    // would fold an item that then scrolls away).
    await expect(doc.locator('.code__line[data-line="1"]')).toBeInViewport();
    const first = doc.locator('.code__line', { hasText: /^- / }).first();
    await first.getByRole('button').click();
    await expect(first.locator('.code__folded')).toHaveText(/^ … \d+ lines$/);
    await expect(doc.locator('.code__line', { hasText: `name: ${name(0)}` })).toHaveCount(0);
    await expect(doc.locator('.code__line', { hasText: `name: ${name(1)}` })).toBeVisible();
    await saveScreen(page, `document-list-items-${as}`);

    // JSON: the same list item by item, commas and all.
    await page.getByRole('group', { name: 'Text format' }).getByRole('button', { name: 'JSON' }).click();
    await expect(note).toContainText(/^120 items, about [\d,]+ lines/);
    await expect(doc.locator('.code__line', { hasText: /^  "items": \[$/ })).toHaveCount(1);
    await doc.evaluate((el) => { el.scrollTop = el.scrollHeight; });
    await expect(doc.locator('.code__line').last()).toHaveText('}');
    // (kube-sim's CBOR, like kube-apiserver's, sorts keys its own way: items may come before others.)
    await expect(doc.locator('.code__line', { hasText: /^  \],?$/ })).toHaveCount(1);
    if (as === 'cbor') {
      // The bytes that came, as they came.
      await page.getByRole('group', { name: 'Text format' }).getByRole('button', { name: 'Hex' }).click();
      await expect(page.getByTestId('document-text')).toContainText('00000000  d9 d9 f7 ');
    }
  } finally {
    await request.delete(`${simUrl()}/api/v1/namespaces/${ns}`);
  }
});

test('a long object\'s keys in view show their field docs too, by pointer and keyboard, and the popover follows a scroll', async ({ page, request }) => {
  const name = await createLongConfigMap(request, `big-docs-${Date.now()}`);
  try {
    await page.goto(`./?group=&version=v1&resource=configmaps&namespace=demo&name=${name}`);
    const doc = page.getByTestId('document-text');
    await expect(page.getByTestId('document-virtual-note')).toContainText(/^6,?0\d\d lines/);
    await doc.scrollIntoViewIfNeeded();
    const popover = page.getByTestId('field-popover');
    // Near the top: the object's name.
    await doc.locator('.code__line').filter({ hasText: /^ {2}name: big-docs-/ }).locator('.tok--key').hover();
    await expect(popover.getByTestId('field-docs-path')).toHaveText('metadata.name');
    await expect(popover.getByTestId('field-docs-type')).toHaveText('<string>');
    await page.mouse.move(0, 0);
    await expect(popover).toHaveCount(0);
    // Thousands of lines down (a search scrolls there): a key of data, a map's.
    const search = page.getByTestId('document-search');
    await search.fill('KEY-4321');
    await search.press('Enter');
    const match = doc.locator('.code__line--match');
    await expect(match).toBeInViewport();
    await match.locator('.tok--key').hover();
    await expect(popover).toContainText('the value of key key-4321 in data');
    await expect(popover.getByTestId('field-docs-type')).toHaveText('<map[string]string>');
    await saveScreen(page, 'document-virtual-field-docs');
    // By keyboard (the pointer out of the way): ↓ from that key to the next, described in turn.
    await page.mouse.move(0, 0);
    await match.locator('.tok--key').focus();
    await page.keyboard.press('ArrowDown');
    await expect(doc.locator('.code__line', { hasText: 'key-4322: value 4322' }).locator('.tok--key')).toBeFocused();
    await expect(popover).toContainText('the value of key key-4322 in data');
    // A small scroll keeps it under its key; scrolled away, it goes.
    const keyBox = async () => (await doc.locator('.code__line', { hasText: 'key-4322: value 4322' }).locator('.tok--key').boundingBox()).y;
    const popoverBox = async () => (await popover.boundingBox()).y;
    const gap = (await popoverBox()) - (await keyBox());
    await doc.evaluate((el) => { el.scrollTop += 36; });
    await expect.poll(async () => (await popoverBox()) - (await keyBox())).toBeCloseTo(gap, 0);
    await doc.evaluate((el) => { el.scrollTop = 0; });
    await expect(popover).toHaveCount(0);
  } finally {
    await request.delete(`${simUrl()}/api/v1/namespaces/demo/configmaps/${name}`);
  }
});
