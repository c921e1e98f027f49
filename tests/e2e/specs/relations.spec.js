// An object's relations (#36 item 2): a Deployment's screen shows its ReplicaSet and pods as a
// tree of links, found with one label-selected list per kind; a pod's screen leads back up to
// its ReplicaSet, and the ReplicaSet's to the Deployment. kube-sim's deployment and replica set
// controllers make the ReplicaSet and the pods, with controller ownerReferences.
const { test, expect } = require('@playwright/test');
const AxeBuilder = require('@axe-core/playwright').default;
const { saveScreen, simUrl } = require('./helpers');

test('a Deployment\'s screen shows its ReplicaSet and pods; a pod\'s leads back up', async ({ page, request }) => {
  const name = `rel-${Date.now().toString(36)}`;
  const labels = { app: name };
  const created = await request.post(`${simUrl()}/apis/apps/v1/namespaces/demo/deployments`, {
    data: {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
      spec: { replicas: 2, selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
    },
  });
  expect(created.status()).toBe(201);
  try {
    // The ReplicaSet and its pods exist before the screen opens (the panel reads them once).
    await expect.poll(async () => {
      const pods = await request.get(`${simUrl()}/api/v1/namespaces/demo/pods?labelSelector=app%3D${name}`);
      return (await pods.json()).items.length;
    }, { timeout: 20000 }).toBe(2);
    const sent = [];
    page.on('request', (r) => { if (r.url().includes('labelSelector=app%3D' + name)) sent.push(r.url()); });
    await page.goto(`./?group=apps&version=v1&resource=deployments&namespace=demo&name=${name}`);
    await expect(page.getByTestId('object-title')).toHaveText(`Deployment ${name}`);
    const panel = page.getByRole('region', { name: 'Relations', exact: true });
    const down = panel.getByTestId('relations-dependents');
    const replicaSet = down.getByRole('link', { name: new RegExp(`^ReplicaSet ${name}-`) });
    await expect(replicaSet).toHaveCount(1);
    const pods = down.getByRole('link', { name: new RegExp(`^Pod ${name}-`) });
    await expect(pods).toHaveCount(2);
    // One list of ReplicaSets and one of pods: not one request per pod.
    expect(sent.length).toBe(2);
    const rsName = (await replicaSet.innerText()).replace('ReplicaSet ', '');
    const results = await new AxeBuilder({ page }).include('[data-testid="relations"]').analyze();
    expect(results.violations.filter((v) => ['serious', 'critical'].includes(v.impact))).toEqual([]);
    await saveScreen(page, 'relations-deployment');

    const podName = (await pods.first().innerText()).replace('Pod ', '');
    await pods.first().click();
    await expect(page.getByTestId('object-title')).toHaveText(`Pod ${podName}`);
    const owners = page.getByRole('region', { name: 'Relations', exact: true }).getByTestId('relations-owners');
    await expect(owners.getByRole('link', { name: `ReplicaSet ${rsName}` })).toBeVisible();
    await saveScreen(page, 'relations-pod');
    await owners.getByRole('link', { name: `ReplicaSet ${rsName}` }).click();
    await expect(page.getByTestId('object-title')).toHaveText(`ReplicaSet ${rsName}`);
    const rsOwners = page.getByRole('region', { name: 'Relations', exact: true }).getByTestId('relations-owners');
    await expect(rsOwners.getByRole('link', { name: `Deployment ${name}` })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Relations', exact: true }).getByTestId('relations-dependents')
      .getByRole('link', { name: new RegExp(`^Pod ${name}-`) })).toHaveCount(2);
  } finally {
    await request.delete(`${simUrl()}/apis/apps/v1/namespaces/demo/deployments/${name}?propagationPolicy=Background`);
  }
});

test('a pod\'s screen names what its spec uses, each a link: its node and the ConfigMap it mounts', async ({ page, request }) => {
  // A demo web pod mounts the ConfigMap web-config and reads LOG_LEVEL from it (read from the
  // pod itself: no request for these links).
  const list = await (await request.get(`${simUrl()}/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb`)).json();
  const pod = list.items.find((p) => p.status.phase === 'Running' && p.spec.nodeName);
  await page.goto(`./?group=&version=v1&resource=pods&namespace=demo&name=${pod.metadata.name}`);
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${pod.metadata.name}`);
  const panel = page.getByRole('region', { name: 'Relations', exact: true });
  await expect(panel.getByRole('heading', { name: 'Uses' })).toBeVisible();
  const uses = panel.getByTestId('relations-uses');
  await expect(uses.getByRole('link', { name: `Node ${pod.spec.nodeName}` })).toBeVisible();
  await expect(uses.getByRole('link', { name: 'ConfigMap web-config', exact: true })).toHaveCount(1);
  const results = await new AxeBuilder({ page }).include('[data-testid="relations"]').analyze();
  expect(results.violations.filter((v) => ['serious', 'critical'].includes(v.impact))).toEqual([]);
  await saveScreen(page, 'relations-uses');
  await uses.getByRole('link', { name: 'ConfigMap web-config', exact: true }).click();
  await expect(page.getByTestId('object-title')).toHaveText('ConfigMap web-config');
  await page.goBack();
  await uses.getByRole('link', { name: `Node ${pod.spec.nodeName}` }).click();
  await expect(page.getByTestId('object-title')).toHaveText(`Node ${pod.spec.nodeName}`);
});
