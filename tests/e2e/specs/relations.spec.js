// An object's relations (#36 item 2): a Deployment's screen shows its ReplicaSet and pods as a
// tree of links, found with one label-selected list per kind; a pod's screen leads back up to
// its ReplicaSet, and the ReplicaSet's to the Deployment. kube-sim's deployment and replica set
// controllers make the ReplicaSet and the pods, with controller ownerReferences. A Service's
// screen shows its EndpointSlices with the pods they name (kube-sim's EndpointSlice controller
// makes them), and the real `kubectl describe service` names the same pods' addresses.
const { test, expect } = require('@playwright/test');
const AxeBuilder = require('@axe-core/playwright').default;
const { kubectl, saveScreen, simUrl } = require('./helpers');

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
  // How each is, read with one list per type: the node's STATUS as kubectl get nodes prints it.
  const nodeLine = uses.locator('li').filter({ has: page.getByRole('link', { name: `Node ${pod.spec.nodeName}` }) });
  const nodeStatus = kubectl('get', 'node', pod.spec.nodeName, '--no-headers').trim().split(/\s+/)[1];
  await expect(nodeLine.locator('.relations__status')).toHaveText(nodeStatus);
  await uses.getByRole('link', { name: 'ConfigMap web-config', exact: true }).click();
  await expect(page.getByTestId('object-title')).toHaveText('ConfigMap web-config');
  await page.goBack();
  await uses.getByRole('link', { name: `Node ${pod.spec.nodeName}` }).click();
  await expect(page.getByTestId('object-title')).toHaveText(`Node ${pod.spec.nodeName}`);
});

test('a Service\'s screen shows its EndpointSlice and the pods it serves; kubectl describe service names the same endpoints', async ({ page, request }) => {
  const name = `svc-${Date.now().toString(36)}`;
  const labels = { app: name };
  const sim = simUrl();
  const deployment = await request.post(`${sim}/apis/apps/v1/namespaces/demo/deployments`, {
    data: {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
      spec: { replicas: 2, selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ name: 'www', containerPort: 8080 }] }] } } },
    },
  });
  expect(deployment.status()).toBe(201);
  const service = await request.post(`${sim}/api/v1/namespaces/demo/services`, {
    data: { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: 'www' }] } },
  });
  expect(service.status()).toBe(201);
  try {
    // Both pods ready and named by the Service's slice before the screen reads it once.
    const ready = async () => {
      const slices = await (await request.get(`${sim}/apis/discovery.k8s.io/v1/namespaces/demo/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D${name}`)).json();
      return slices.items.flatMap((s) => (s.endpoints || []).filter((e) => e.conditions.ready).map((e) => e.targetRef.name)).sort();
    };
    await expect.poll(async () => (await ready()).length, { timeout: 20000 }).toBe(2);
    const served = await ready();
    const pods = (await (await request.get(`${sim}/api/v1/namespaces/demo/pods?labelSelector=app%3D${name}`)).json()).items;
    const sent = [];
    page.on('request', (r) => { if (r.url().includes('labelSelector=')) sent.push(r.url()); });
    await page.goto(`./?group=&version=v1&resource=services&namespace=demo&name=${name}`);
    await expect(page.getByTestId('object-title')).toHaveText(`Service ${name}`);
    const down = page.getByRole('region', { name: 'Relations', exact: true }).getByTestId('relations-dependents');
    const slice = down.getByRole('link', { name: new RegExp(`^EndpointSlice ${name}-`) });
    await expect(slice).toHaveCount(1);
    // The slice's ready endpoints out of all, and under it the pods it names, each a link.
    const sliceLine = down.locator('li').filter({ has: page.getByRole('link', { name: new RegExp(`^EndpointSlice ${name}-`) }) });
    await expect(sliceLine.locator('.relations__status').first()).toHaveText('2/2');
    const podLinks = down.getByRole('link', { name: new RegExp(`^Pod ${name}-`) });
    await expect(podLinks).toHaveText(served.map((p) => `Pod ${p}`));
    // One list of slices by the service-name label and one of pods by the selector.
    expect(sent.filter((u) => u.includes('endpointslices') || u.includes('/pods?')).length).toBe(2);

    // The real kubectl reads the same slices: its Endpoints line is the pods' addresses on the
    // port the named target port resolves to.
    const described = kubectl('describe', 'service', '-n', 'demo', name);
    const line = described.split('\n').find((l) => l.startsWith('Endpoints:'));
    const shown = line.replace('Endpoints:', '').trim().split(',').sort();
    expect(shown).toEqual(pods.map((p) => `${p.status.podIP}:8080`).sort());
    await saveScreen(page, 'relations-service');

    // Scaled to three: the screen reads its relations again by itself (every 10 s), no click.
    const scaled = await request.patch(`${sim}/apis/apps/v1/namespaces/demo/deployments/${name}/scale`, {
      headers: { 'Content-Type': 'application/merge-patch+json' }, data: JSON.stringify({ spec: { replicas: 3 } }),
    });
    expect(scaled.status()).toBe(200);
    await expect(podLinks).toHaveCount(3, { timeout: 30000 });
    await expect(sliceLine.locator('.relations__status').first()).toHaveText('3/3', { timeout: 30000 });

    // The slice's own screen leads back up to the Service.
    await slice.click();
    await expect(page.getByTestId('object-title')).toHaveText(new RegExp(`^EndpointSlice ${name}-`));
    const owners = page.getByRole('region', { name: 'Relations', exact: true }).getByTestId('relations-owners');
    await expect(owners.getByRole('link', { name: `Service ${name}` })).toBeVisible();
  } finally {
    await request.delete(`${sim}/api/v1/namespaces/demo/services/${name}`);
    await request.delete(`${sim}/apis/apps/v1/namespaces/demo/deployments/${name}?propagationPolicy=Background`);
  }
});

test('a pod that names a ConfigMap the server does not have says so on its screen', async ({ page, request }) => {
  const name = `uses-${Date.now().toString(36)}`;
  const sim = simUrl();
  const created = await request.post(`${sim}/api/v1/namespaces/demo/pods`, {
    data: { apiVersion: 'v1', kind: 'Pod', metadata: { name },
      spec: { containers: [{ name: 'app', image: 'busybox:1.36', envFrom: [{ configMapRef: { name: `${name}-settings` } }, { configMapRef: { name: 'web-config' } }] }] } },
  });
  expect(created.status()).toBe(201);
  try {
    const sent = [];
    page.on('request', (r) => { if (r.url().includes('/configmaps')) sent.push(r.url()); });
    await page.goto(`./?group=&version=v1&resource=pods&namespace=demo&name=${name}`);
    await expect(page.getByTestId('object-title')).toHaveText(`Pod ${name}`);
    const uses = page.getByRole('region', { name: 'Relations', exact: true }).getByTestId('relations-uses');
    const line = (object) => uses.locator('li').filter({ has: page.getByRole('link', { name: object, exact: true }) });
    await expect(line(`ConfigMap ${name}-settings`)).toContainText('not found on the server');
    await expect(line('ConfigMap web-config')).not.toContainText('not found');
    // Two ConfigMaps named: one list of the namespace's ConfigMaps (metadata only), not one each.
    expect(sent.length).toBe(1);
    await saveScreen(page, 'relations-missing');
    // Made on the server, then Read again: found.
    expect((await request.post(`${sim}/api/v1/namespaces/demo/configmaps`, { data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-settings` } } })).status()).toBe(201);
    await page.getByRole('region', { name: 'Relations', exact: true }).getByTestId('relations-refresh').click();
    await expect(line(`ConfigMap ${name}-settings`)).not.toContainText('not found');
  } finally {
    await request.delete(`${sim}/api/v1/namespaces/demo/pods/${name}?gracePeriodSeconds=0`);
    await request.delete(`${sim}/api/v1/namespaces/demo/configmaps/${name}-settings`);
  }
});

test('any object\'s dependents by ownerReferences: its screen leads to a search of every type for what it owns', async ({ page, request }) => {
  const name = `owner-${Date.now().toString(36)}`;
  const sim = simUrl();
  const owner = await request.post(`${sim}/api/v1/namespaces/demo/configmaps`, { data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } });
  expect(owner.status()).toBe(201);
  const uid = (await owner.json()).metadata.uid;
  const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid }];
  expect((await request.post(`${sim}/api/v1/namespaces/demo/secrets`, { data: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-token`, ownerReferences } } })).status()).toBe(201);
  expect((await request.post(`${sim}/api/v1/namespaces/demo/serviceaccounts`, { data: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: `${name}-sa`, ownerReferences } } })).status()).toBe(201);
  try {
    await page.goto(`./?group=&version=v1&resource=configmaps&namespace=demo&name=${name}`);
    await expect(page.getByTestId('object-title')).toHaveText(`ConfigMap ${name}`);
    await page.getByRole('region', { name: 'Relations', exact: true }).getByTestId('relations-everywhere').click();
    await expect(page).toHaveURL(new RegExp(`searchOwner=${uid}`));
    await expect(page.getByTestId('search-owner')).toContainText(uid);
    const group = (resource) => page.locator(`[data-testid="search-group"][data-resource="${resource}"]`);
    await expect(group('secrets').getByTestId('search-hit')).toHaveText([`demo/${name}-token`], { timeout: 30000 });
    await expect(group('serviceaccounts').getByTestId('search-hit')).toHaveText([`demo/${name}-sa`]);
    await expect(group('configmaps')).toHaveCount(0);
    await saveScreen(page, 'relations-everywhere');
  } finally {
    for (const [kind, n] of [['secrets', `${name}-token`], ['serviceaccounts', `${name}-sa`], ['configmaps', name]]) {
      await request.delete(`${sim}/api/v1/namespaces/demo/${kind}/${n}`);
    }
  }
});
