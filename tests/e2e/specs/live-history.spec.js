// The live view's object history under a burst (#41, the soak's history): it keeps 3,000
// versions in all, so a busy cluster's changes push an object's versions out within seconds. The
// object the user picked is pinned: its versions stay (up to its own bound of 30) while thousands
// of other objects change, the menu keeps it picked while it is drawn again, and the others still
// go by the total.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

const BURST = 3_100;

test('the object picked in the history keeps its versions while thousands of others change', async ({ page, request }) => {
  test.setTimeout(5 * 60_000);
  const ns = `history-${Date.now().toString(36)}`;
  const base = `${simUrl()}/api/v1/namespaces/${ns}/configmaps`;
  const create = async (name) => {
    const answer = await request.post(base, { data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: '0' } } });
    expect(answer.status()).toBe(201);
  };
  const change = async (name, value) => {
    const answer = await request.patch(`${base}/${name}`, {
      headers: { 'Content-Type': 'application/merge-patch+json' },
      data: JSON.stringify({ data: { k: value } }),
    });
    expect(answer.status()).toBe(200);
    return (await answer.json()).metadata.resourceVersion;
  };
  const made = await request.post(`${simUrl()}/api/v1/namespaces`, { data: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
  expect(made.status()).toBe(201);
  try {
    await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${ns}&watch=1`);
    await expect(page.getByTestId('live-state')).toHaveText(/^watching/);
    await create('picked');
    await create('other');
    const picked = [await change('picked', '1'), await change('picked', '2')];
    await change('other', '1');
    const history = page.getByRole('region', { name: 'Object history' });
    const historyOf = history.getByLabel('History of object');
    await expect(historyOf.locator('option', { hasText: `ConfigMap ${ns}/other` })).toHaveCount(1);
    await historyOf.selectOption(`ConfigMap ${ns}/picked`);
    const versions = history.getByLabel('From').locator('option');
    await expect(versions).toHaveCount(3);

    // More versions of other objects than the history keeps in all, 50 at a time.
    for (let n = 0; n < BURST; n += 50) {
      await Promise.all(Array.from({ length: Math.min(50, BURST - n) }, (_, i) => create(`burst-${n + i}`)));
    }
    await expect(page.getByTestId('live-view').getByTestId('row-count')).toHaveText(`${(BURST + 2).toLocaleString('en-US')} rows`, { timeout: 60_000 });
    // The picked object kept its three versions and is still the one picked; `other`, not picked,
    // lost its versions to the total and left the menu of objects with something to diff.
    await expect(historyOf).toHaveValue(`ConfigMap ${ns}/picked`);
    expect(await versions.allTextContents()).toEqual([expect.stringMatching(/^ADDED rv \d+$/), `MODIFIED rv ${picked[0]}`, `MODIFIED rv ${picked[1]}`]);
    await expect(historyOf.locator('option', { hasText: `ConfigMap ${ns}/other` })).toHaveCount(0);
    await expect(history.getByTestId('history-diff')).toContainText(/\+\s+k: ['"]2['"]/);
    await saveScreen(page, 'live-history-pinned');
  } finally {
    await request.delete(`${simUrl()}/api/v1/namespaces/${ns}`);
  }
});
