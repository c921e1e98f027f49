// An object in its context (#36, part 3): who changed which field. A ConfigMap's screen lists
// each field with the manager that owns it (metadata.managedFields); patched from outside by a
// named field manager while the screen is open, the screen shows that manager on the changed
// field, the change itself and the field's history, without a reload.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

/** The manager cell of the owned field `path` (as an entry names it, e.g. ".data.colour"). */
function managerOf(page, path) {
  return page.getByTestId('owned-fields').locator(`tr[data-path="${path}"]`).getByTestId('field-manager');
}

test('a ConfigMap patched by a named field manager shows that manager on the changed field, live', async ({ page, request }) => {
  const name = `owners-e2e-${Date.now().toString(36)}`;
  const base = `${simUrl()}/api/v1/namespaces/demo/configmaps`;
  const created = await request.post(`${base}?fieldManager=e2e-creator`, {
    data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { colour: 'red', shape: 'round' } },
  });
  expect(created.status()).toBe(201);
  const uid = (await created.json()).metadata.uid;
  // One Event about it: the Events heading counts it in the singular.
  const event = await request.post(`${simUrl()}/api/v1/namespaces/demo/events`, {
    data: {
      apiVersion: 'v1', kind: 'Event', metadata: { name: `${name}.painted` },
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name, namespace: 'demo', uid },
      type: 'Normal', reason: 'Painted', message: 'painted red', source: { component: 'e2e-painter' },
    },
  });
  expect(event.status()).toBe(201);
  try {
    await page.goto(`./?group=&version=v1&resource=configmaps&namespace=demo&name=${name}`);
    await expect(page.getByTestId('object-title')).toHaveText(`ConfigMap ${name}`);
    await expect(page.getByRole('region', { name: 'Events', exact: true }).getByRole('status').first())
      .toContainText('1 Event, watched through events.k8s.io/v1');
    const panel = page.getByRole('region', { name: 'Field managers' });
    // Folded at first, its summary counting the owned fields; opened, it lists that many.
    const summary = panel.getByTestId('field-owners-summary');
    await expect(summary).toContainText(/\d+ fields with a manager/);
    await expect(page.getByTestId('owned-fields')).toBeHidden();
    await summary.click();
    await expect(page.getByTestId('owned-fields')).toBeVisible();
    const counted = parseInt((await summary.locator('.field-owners__count').textContent()).trim(), 10);
    await expect(page.getByTestId('owned-fields').locator('tbody tr')).toHaveCount(counted);
    await expect(managerOf(page, '.data.colour')).toHaveText('e2e-creator');
    await expect(managerOf(page, '.data.shape')).toHaveText('e2e-creator');
    await expect(panel.getByTestId('field-changes').getByTestId('field-change')).toHaveCount(0);
    // A marker that a reload would lose.
    await page.evaluate(() => { window.__ownersNoReload = true; });

    // From outside: a merge patch by e2e-colourist (an Update takes .data.colour from the creator).
    const patched = await request.patch(`${base}/${name}?fieldManager=e2e-colourist`, {
      headers: { 'Content-Type': 'application/merge-patch+json' },
      data: JSON.stringify({ data: { colour: 'blue' } }),
    });
    expect(patched.status()).toBe(200);
    await expect(managerOf(page, '.data.colour')).toHaveText('e2e-colourist');
    await expect(managerOf(page, '.data.shape')).toHaveText('e2e-creator');
    // The document shown is still the version read, and the screen says so.
    const readRv = (await created.json()).metadata.resourceVersion;
    const patchedRv = (await patched.json()).metadata.resourceVersion;
    await expect(page.getByTestId('document-text')).toContainText(/colour"?: ["']?red/);
    await expect(page.getByTestId('object-freshness')).toHaveText(
      `This object changed on the server since it was read: resourceVersion ${readRv} → ${patchedRv}, by e2e-colourist. Show the newest version`,
    );
    const colourChange = panel.getByTestId('field-change').first();
    await expect(colourChange.getByTestId('changed-field'))
      .toHaveText('.data.colour: "red" → "blue", by e2e-colourist');
    await expect(colourChange).toContainText('e2e-colourist (Update)');
    await expect(colourChange).toContainText('e2e-creator (Update)');

    // Then a server-side apply by e2e-sizer adds .data.size.
    const applied = await request.patch(`${base}/${name}?fieldManager=e2e-sizer`, {
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      data: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { size: '3' } }),
    });
    expect(applied.status()).toBe(200);
    await expect(managerOf(page, '.data.size')).toHaveText('e2e-sizer');
    await expect(page.getByTestId('owned-fields').locator('tr[data-path=".data.size"]')).toContainText('Apply');
    await expect(panel.getByTestId('field-change')).toHaveCount(2);
    // Read again: the newest version is shown, the line goes, and what the watch saw is kept.
    await page.getByTestId('object-read-again').click();
    await expect(page.getByTestId('document-text')).toContainText(/colour"?: ["']?blue/);
    await expect(page.getByTestId('document-text')).toContainText(/size"?: ["']?3/);
    await expect(page.getByTestId('object-freshness')).toHaveCount(0);
    await expect(panel.getByTestId('field-change')).toHaveCount(2);
    await expect(panel.getByTestId('field-change').first().getByTestId('changed-field'))
      .toHaveText('.data.size: (absent) → "3", by e2e-sizer');

    // The colour's history across the versions seen.
    await page.getByTestId('owned-fields').locator('tr[data-path=".data.colour"]').getByTestId('field-history-open').click();
    const history = page.getByTestId('field-history');
    await expect(page.getByRole('heading', { name: 'History of .data.colour' })).toBeVisible();
    await expect(history.locator('tbody tr')).toHaveCount(2);
    await expect(history.locator('tbody tr').nth(0)).toContainText('"red"');
    await expect(history.locator('tbody tr').nth(0)).toContainText('e2e-creator (Update)');
    await expect(history.locator('tbody tr').nth(1)).toContainText('"blue"');
    await expect(history.locator('tbody tr').nth(1)).toContainText('e2e-colourist (Update)');
    expect(await page.evaluate(() => window.__ownersNoReload)).toBe(true);
    await panel.scrollIntoViewIfNeeded();
    await saveScreen(page, 'field-owners');
    // Deleted behind the screen: it says so, and keeps the last version read.
    expect((await request.delete(`${base}/${name}`)).status()).toBe(200);
    await expect(page.getByTestId('object-freshness')).toHaveText(
      'This object was deleted on the server after it was read: what is shown is the last version read.',
    );
    await expect(page.getByTestId('document-text')).toContainText(/colour"?: ["']?blue/);
  } finally {
    await request.delete(`${base}/${name}`);
    await request.delete(`${simUrl()}/api/v1/namespaces/demo/events/${name}.painted`);
  }
});
