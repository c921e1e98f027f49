// The picture of a namespace (#36 item 2): the demo namespace's screen shows its Deployments down
// to their ReplicaSets and pods and its Services down to their EndpointSlices and the pods they
// serve, each a link with its status word, with one list per type (the pods as a Table), and
// what kubectl says of the same objects.
const { test, expect } = require('@playwright/test');
const AxeBuilder = require('@axe-core/playwright').default;
const { kubectl, saveScreen } = require('./helpers');

test('a namespace\'s screen draws its workloads and Services down to their pods, one list per type', async ({ page }) => {
  const lists = [];
  const perPod = [];
  page.on('request', (r) => {
    if (/\/namespaces\/demo\/[a-z]+(\?|$)/.test(r.url())) lists.push(`${r.url()} ${r.headers().accept || ''}`);
    if (/\/namespaces\/demo\/pods\/[a-z0-9-]+(\?|$)/.test(r.url())) perPod.push(r.url());
  });
  await page.goto('./?group=&version=v1&resource=namespaces&name=demo');
  await expect(page.getByTestId('object-title')).toHaveText('Namespace demo');
  const picture = page.getByRole('region', { name: 'Picture of the namespace', exact: true });
  const workloads = picture.getByTestId('picture-workloads');
  const services = picture.getByTestId('picture-services');

  // The web Deployment, its ReplicaSet and its pods, as kubectl lists them.
  const webPods = kubectl('get', 'pods', '-n', 'demo', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}').trim().split(/\s+/).sort();
  const deployment = workloads.locator('li').filter({ has: page.getByRole('link', { name: 'Deployment web', exact: true }) });
  await expect(deployment.getByRole('link', { name: /^ReplicaSet web-/ })).toHaveCount(1);
  await expect(deployment.getByRole('link', { name: /^Pod web-/ })).toHaveText(webPods.map((p) => `Pod ${p}`));
  const ready = kubectl('get', 'deployment', 'web', '-n', 'demo', '--no-headers').trim().split(/\s+/)[1];
  await expect(deployment.locator('.relations__status').first()).toHaveText(ready);
  // The web Service, its slice and the same pods.
  const service = services.locator('li').filter({ has: page.getByRole('link', { name: 'Service web', exact: true }) });
  await expect(service.getByRole('link', { name: /^EndpointSlice web-/ })).toHaveCount(1);
  await expect(service.getByRole('link', { name: /^Pod web-/ })).toHaveText(webPods.map((p) => `Pod ${p}`));

  // One list per type (read again every 10 s), the pods as a Table (the metrics panel lists them
  // too, as JSON, for their requests); no request per pod.
  const pods = lists.filter((l) => /\/namespaces\/demo\/pods(\?|\s)/.test(l));
  expect(pods.length).toBeGreaterThanOrEqual(1);
  expect(pods.some((l) => l.includes('as=Table'))).toBe(true);
  expect(perPod).toEqual([]);

  const results = await new AxeBuilder({ page }).include('[data-testid="namespace-picture"]').analyze();
  expect(results.violations.filter((v) => ['serious', 'critical'].includes(v.impact))).toEqual([]);
  await saveScreen(page, 'namespace-picture');

  await service.getByRole('link', { name: /^EndpointSlice web-/ }).click();
  await expect(page.getByTestId('object-title')).toHaveText(/^EndpointSlice web-/);
});
