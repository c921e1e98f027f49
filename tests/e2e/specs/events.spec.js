// An object in its context (#36): the Events of an object on its screen, live, each a link to
// the Event, with its controller's Events when asked. kube-sim serves events.k8s.io/v1 (which the
// explorer prefers) from the same store as the core Events its scheduler and kubelet record.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

const JSON_ONLY = { headers: { Accept: 'application/json' } };

/** The rows of an Events table as "REASON COUNT" strings (the second and fourth cells). */
async function reasons(table) {
  return table.locator('tbody tr').evaluateAll((rows) =>
    rows.map((r) => `${r.cells[1].innerText.trim()} ${r.cells[3].innerText.trim()}`));
}

test('a pod\'s screen shows its Events as they happen, each a link to the Event', async ({ page, request }) => {
  const name = `events-e2e-${Date.now().toString(36)}`;
  const created = await request.post(`${simUrl()}/api/v1/namespaces/demo/pods`, {
    data: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
  });
  expect(created.status()).toBe(201);
  const uid = (await created.json()).metadata.uid;
  try {
    await page.goto(`./?group=&version=v1&resource=pods&namespace=demo&name=${name}`);
    await expect(page.getByTestId('object-title')).toHaveText(`Pod ${name}`);
    const events = page.getByTestId('object-events');
    const region = page.getByRole('region', { name: 'Events', exact: true });
    await expect(region.getByRole('status').first()).toContainText('watched through events.k8s.io/v1');
    // The scheduler's and the kubelet's Events arrive while the screen is open.
    for (const reason of ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started']) {
      await expect(events.getByRole('row').filter({ hasText: reason }).first()).toBeVisible({ timeout: 15000 });
    }
    await expect(events.getByRole('row').filter({ hasText: 'Scheduled' })).toContainText('default-scheduler');
    await expect(events.getByRole('row').filter({ hasText: 'Started' })).toContainText('Started container web');

    // A core v1 Event about the pod, counted four times, comes through events.k8s.io/v1 at once.
    // Its last time (whole seconds, as the API keeps it) must be later than the kubelet's Events
    // shown above, which can fall in this very second: wait for the next one.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 50));
    const probe = await request.post(`${simUrl()}/api/v1/namespaces/demo/events`, {
      data: {
        apiVersion: 'v1', kind: 'Event', metadata: { name: `${name}.probe` },
        involvedObject: { apiVersion: 'v1', kind: 'Pod', name, namespace: 'demo', uid },
        type: 'Warning', reason: 'E2eProbe', message: 'probe failed: connection refused', count: 4,
        source: { component: 'e2e-prober' }, reportingComponent: 'e2e-prober',
        firstTimestamp: new Date(Date.now() - 60000).toISOString().replace(/\.\d+Z$/, 'Z'),
        lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      },
    });
    expect(probe.status()).toBe(201);
    const probeRow = events.getByRole('row').filter({ hasText: 'E2eProbe' });
    await expect(probeRow).toContainText('probe failed: connection refused');
    await expect(probeRow).toContainText('e2e-prober');
    await expect(probeRow).toHaveAttribute('data-warning', 'true');
    expect(await reasons(events)).toContain('E2eProbe 4');
    // The latest first.
    expect((await reasons(events))[0]).toBe('E2eProbe 4');
    await saveScreen(page, 'object-events');

    // An Event about another object does not show.
    const other = await request.post(`${simUrl()}/api/v1/namespaces/demo/events`, {
      data: { apiVersion: 'v1', kind: 'Event', metadata: { name: `${name}.other` },
        involvedObject: { apiVersion: 'v1', kind: 'Pod', name, namespace: 'demo', uid: `${uid}-other` },
        reason: 'NotThisOne', message: 'about another pod of the same name', type: 'Normal' },
    });
    expect(other.status()).toBe(201);
    await expect(events.getByRole('row').filter({ hasText: 'E2eProbe' })).toBeVisible();
    await page.waitForTimeout(1000);
    await expect(events.getByRole('row').filter({ hasText: 'NotThisOne' })).toHaveCount(0);

    // Each reason links to its Event.
    await events.getByRole('row').filter({ hasText: 'E2eProbe' }).getByTestId('event-link').click();
    await expect(page.getByTestId('object-title')).toHaveText(`Event ${name}.probe`);
    await expect(page).toHaveURL(/group=events\.k8s\.io/);
    await page.goBack();
    await expect(page.getByTestId('object-title')).toHaveText(`Pod ${name}`);

    // Deleted gracefully, the pod's containers are stopped: the kubelet's Killing comes in live.
    await request.delete(`${simUrl()}/api/v1/namespaces/demo/pods/${name}`);
    await expect(page.getByTestId('object-events').getByRole('row').filter({ hasText: 'Killing' }))
      .toContainText('Stopping container web');
  } finally {
    await request.delete(`${simUrl()}/api/v1/namespaces/demo/pods/${name}`);
  }
});

test('a pod of a Deployment shows its ReplicaSet\'s Events when asked', async ({ page, request }) => {
  const name = `events-e2e-deploy-${Date.now().toString(36)}`;
  const labels = { app: name };
  const created = await request.post(`${simUrl()}/apis/apps/v1/namespaces/demo/deployments`, {
    data: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
      spec: { replicas: 1, selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } } },
  });
  expect(created.status()).toBe(201);
  try {
    let pod;
    await expect.poll(async () => {
      const pods = await (await request.get(`${simUrl()}/api/v1/namespaces/demo/pods?labelSelector=app%3D${name}`, JSON_ONLY)).json();
      pod = pods.items[0];
      return pods.items.length;
    }).toBe(1);
    const owner = pod.metadata.ownerReferences[0];
    await page.goto(`./?group=&version=v1&resource=pods&namespace=demo&name=${pod.metadata.name}`);
    await expect(page.getByTestId('object-title')).toHaveText(`Pod ${pod.metadata.name}`);
    await expect(page.getByTestId('owner-events')).toHaveCount(0);
    await page.getByRole('checkbox', { name: `Also show the Events of its controller, ReplicaSet ${owner.name}` }).check();
    const ownerEvents = page.getByTestId('owner-events');
    await expect(page.getByRole('heading', { name: `Events of ReplicaSet ${owner.name}` })).toBeVisible();
    await expect(ownerEvents.getByRole('row').filter({ hasText: 'SuccessfulCreate' })).toContainText(`Created pod: ${pod.metadata.name}`);
    await expect(ownerEvents.getByRole('row').filter({ hasText: 'SuccessfulCreate' })).toContainText('replicaset-controller');
    await saveScreen(page, 'object-events-owner');

    // The Deployment's own screen: the deployment controller scaled its ReplicaSet.
    await page.goto(`./?group=apps&version=v1&resource=deployments&namespace=demo&name=${name}`);
    await expect(page.getByTestId('object-events').getByRole('row').filter({ hasText: 'ScalingReplicaSet' }))
      .toContainText(`Scaled up replica set ${owner.name}`);
  } finally {
    await request.delete(`${simUrl()}/apis/apps/v1/namespaces/demo/deployments/${name}`);
  }
});
