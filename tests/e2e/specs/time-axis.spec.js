// An object's time axis (#36 item 4): a new pod's screen puts its Events (kube-sim's scheduler and
// kubelet emit Scheduled, Pulled, Created, Started), the changes its watch sees (a label patched
// by a named field manager while the screen is open) and its
// log lines on one list by time, the newest first; each source can be hidden, and each entry
// links to where it came from: the Event, the change in the Field managers panel, the log.
const { test, expect } = require('@playwright/test');
const AxeBuilder = require('@axe-core/playwright').default;
const { saveScreen, simUrl } = require('./helpers');

test('a pod\'s time axis mixes its Events, its changes and its log lines, each a link to its source', async ({ page, request }) => {
  const name = `axis-${Date.now().toString(36)}`;
  const base = `${simUrl()}/api/v1/namespaces/demo/pods`;
  const created = await request.post(base, {
    data: { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
  });
  expect(created.status()).toBe(201);
  try {
    await page.goto(`./?group=&version=v1&resource=pods&namespace=demo&name=${name}`);
    await expect(page.getByTestId('object-title')).toHaveText(`Pod ${name}`);
    const panel = page.getByRole('region', { name: 'Time axis', exact: true });
    await panel.getByTestId('time-axis-summary').click();
    const entries = panel.getByTestId('axis-entry');
    const of = (source) => panel.locator(`[data-testid="axis-entry"][data-source="${source}"]`);
    await expect(of('event').filter({ hasText: 'Started' })).toHaveCount(1, { timeout: 20000 });
    await expect(of('event').filter({ hasText: 'Scheduled' })).toHaveCount(1);
    await expect(of('log').first()).toBeVisible({ timeout: 20000 });

    // A write while the screen is open: on the axis without a reload, under its manager's name.
    await page.evaluate(() => { window.__axisNoReload = true; });
    const patched = await request.patch(`${base}/${name}?fieldManager=e2e-axis`, {
      headers: { 'Content-Type': 'application/merge-patch+json' },
      data: JSON.stringify({ metadata: { labels: { tier: 'front' } } }),
    });
    expect(patched.status()).toBe(200);
    const labelled = of('change').filter({ hasText: 'e2e-axis (Update)' });
    await expect(labelled).toHaveCount(1);
    await expect(labelled).toContainText('metadata.labels.tier');
    expect(await page.evaluate(() => window.__axisNoReload)).toBe(true);

    // One list by time, the newest first.
    const times = await entries.locator('time').evaluateAll((ts) => ts.map((t) => Date.parse(t.getAttribute('datetime'))));
    expect(times.length).toBeGreaterThan(4);
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const results = await new AxeBuilder({ page }).include('[data-testid="time-axis"]').analyze();
    expect(results.violations.filter((v) => ['serious', 'critical'].includes(v.impact))).toEqual([]);
    await saveScreen(page, 'time-axis');

    // Each source can be hidden, and shown again.
    await panel.getByTestId('axis-show-logs').uncheck();
    await expect(of('log')).toHaveCount(0);
    await panel.getByTestId('axis-show-events').uncheck();
    await expect(of('event')).toHaveCount(0);
    await expect(of('change').first()).toBeVisible();
    await panel.getByTestId('axis-show-events').check();
    await panel.getByTestId('axis-show-logs').check();
    await expect(of('log').first()).toBeVisible();

    // A change leads to its place in the Field managers panel, unfolded.
    const rv = (await patched.json()).metadata.resourceVersion;
    await labelled.getByTestId('axis-link').click();
    const change = page.getByTestId('field-owners').locator(`[data-testid="field-change"][data-rv="${rv}"]`);
    await expect(change).toBeVisible();
    await expect(change).toBeInViewport();
    // A log line opens the pod's log.
    await of('log').first().getByTestId('axis-link').click();
    await expect(page.getByRole('region', { name: 'Pod log' })).toBeVisible();
    // An Event opens the Event.
    await of('event').filter({ hasText: 'Scheduled' }).getByTestId('axis-link').click();
    await expect(page.getByTestId('object-title')).toHaveText(/^Event /);
  } finally {
    await request.delete(`${base}/${name}?gracePeriodSeconds=0`);
  }
});
