// Drain from a node's screen (#37), as `kubectl drain` does it: the cordon, the node's pods
// listed by field selector, kubectl's filters, then one policy/v1 Eviction per pod; a
// PodDisruptionBudget that allows no disruption makes an eviction wait (429, retried every 5 s,
// the budget named on the page) until the budget is loosened; each evicted pod is followed until
// it is gone. Cancel stops the evictions and leaves the node cordoned, and says so.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

const JSON_ACCEPT = { headers: { Accept: 'application/json' } };
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

async function json(request, path) {
  return (await request.get(`${simUrl()}${path}`, JSON_ACCEPT)).json();
}

/** A node running one of demo's api pods, and a budget over them that allows no disruption. */
async function blockedNode(request, budget) {
  const pods = await json(request, '/api/v1/namespaces/demo/pods?labelSelector=app%3Dapi');
  const running = pods.items.filter((p) => p.status.phase === 'Running' && p.spec.nodeName);
  expect(running.length).toBeGreaterThan(0);
  const made = await request.post(`${simUrl()}/apis/policy/v1/namespaces/demo/poddisruptionbudgets`, {
    data: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: budget, namespace: 'demo' },
      spec: { minAvailable: running.length, selector: { matchLabels: { app: 'api' } } } },
  });
  expect(made.status()).toBe(201);
  return running[0].spec.nodeName;
}

async function cleanUp(request, node, budget) {
  await request.delete(`${simUrl()}/apis/policy/v1/namespaces/demo/poddisruptionbudgets/${budget}`);
  await request.patch(`${simUrl()}/api/v1/nodes/${node}`, { headers: MERGE, data: JSON.stringify({ spec: { unschedulable: null } }) });
}

async function openDrain(page, node) {
  await page.goto(`./?group=&version=v1&resource=nodes&name=${node}`);
  await page.getByRole('group', { name: 'Operations' }).getByRole('button', { name: 'Drain', exact: true }).click();
  const panel = page.getByTestId('drain-panel');
  await expect(panel.getByTestId('drain-pod').first()).toBeVisible();
  for (const name of [/--ignore-daemonsets/, /--delete-emptydir-data/, /--force/]) await panel.getByLabel(name).check();
  await expect(panel.getByTestId('drain-kubectl')).toHaveText(`kubectl drain ${node} --ignore-daemonsets --delete-emptydir-data --force`);
  return panel;
}

/** The writes the page sends: the node's PATCH and the Evictions. */
function writes(page) {
  const sent = [];
  page.on('request', (r) => {
    if (r.method() === 'PATCH' || (r.method() === 'POST' && r.url().endsWith('/eviction'))) {
      sent.push({ method: r.method(), path: new URL(r.url()).pathname + new URL(r.url()).search, type: r.headers()['content-type'], body: r.postData(), at: Date.now() });
    }
  });
  return sent;
}

test('a drain waits on a blocking PodDisruptionBudget, naming it, and finishes once the budget allows', async ({ page, request }) => {
  test.setTimeout(120_000);
  const budget = `drain-e2e-${Date.now().toString(36)}`;
  const node = await blockedNode(request, budget);
  try {
    const sent = writes(page);
    const panel = await openDrain(page, node);
    // The requests as they will be sent: the cordon's PATCH, the list, and the first Eviction.
    const steps = panel.getByTestId('drain-step');
    await expect(steps.nth(0)).toContainText(`PATCH /api/v1/nodes/${node}`);
    await expect(steps.nth(0)).toContainText('{"spec":{"unschedulable":true}}');
    await expect(steps.nth(1)).toContainText(`/api/v1/pods?fieldSelector=spec.nodeName%3D${node}&limit=500`);
    const evictionBody = await panel.getByTestId('drain-eviction-body').textContent();
    await expect(panel.getByTestId('drain-pod').filter({ hasText: 'kube-proxy' })).toContainText('left: DaemonSet-managed');

    await panel.getByTestId('drain-start').click();
    const apiRow = panel.getByTestId('drain-pod').filter({ hasText: /demo\/api-/ }).first();
    await expect(apiRow.getByTestId('drain-pod-progress')).toContainText(`waiting: the PodDisruptionBudget ${budget} does not allow it now`, { timeout: 30_000 });
    await expect(panel.getByTestId('drain-stage')).toContainText('waiting on a PodDisruptionBudget');
    await saveScreen(page, 'drain-blocked');
    // The node was cordoned first, exactly as previewed.
    expect(sent[0]).toMatchObject({ method: 'PATCH', path: `/api/v1/nodes/${node}`, type: 'application/strategic-merge-patch+json', body: '{"spec":{"unschedulable":true}}' });
    expect((await json(request, `/api/v1/nodes/${node}`)).spec.unschedulable).toBe(true);
    // Every Eviction is kubectl's body for its pod; the first one shown is byte for byte the preview.
    const evictions = sent.filter((s) => s.method === 'POST');
    expect(evictions.length).toBeGreaterThan(0);
    const firstPath = evictions.map((e) => e.path).sort()[0];
    expect(evictions.find((e) => e.path === firstPath).body).toBe(evictionBody);
    for (const e of evictions) {
      const [, ns, name] = /\/namespaces\/([^/]+)\/pods\/([^/]+)\/eviction$/.exec(e.path);
      expect(JSON.parse(e.body)).toEqual({ kind: 'Eviction', apiVersion: 'policy/v1', metadata: { name, namespace: ns, creationTimestamp: null }, deleteOptions: {} });
      expect(e.type).toBe('application/json');
    }

    // The budget loosened: the next retry goes through and the drain ends.
    const loosened = await request.patch(`${simUrl()}/apis/policy/v1/namespaces/demo/poddisruptionbudgets/${budget}`, { headers: MERGE, data: JSON.stringify({ spec: { minAvailable: 0 } }) });
    expect(loosened.status()).toBe(200);
    await expect(panel.getByTestId('drain-stage')).toContainText('Drained: every pod evicted is gone.', { timeout: 60_000 });
    await expect(apiRow.getByTestId('drain-pod-progress')).toHaveText('gone');
    const left = await json(request, `/api/v1/pods?fieldSelector=spec.nodeName%3D${node}`);
    expect(left.items.every((p) => p.metadata.ownerReferences?.some((o) => o.kind === 'DaemonSet'))).toBe(true);
    await saveScreen(page, 'drain-done');
  } finally {
    await cleanUp(request, node, budget);
  }
});

test('Cancel stops the evictions and leaves the node cordoned, saying so', async ({ page, request }) => {
  test.setTimeout(60_000);
  const budget = `drain-cancel-${Date.now().toString(36)}`;
  const node = await blockedNode(request, budget);
  try {
    const sent = writes(page);
    const panel = await openDrain(page, node);
    await panel.getByTestId('drain-start').click();
    await expect(panel.getByTestId('drain-pod').filter({ hasText: /demo\/api-/ }).first().getByTestId('drain-pod-progress'))
      .toContainText('waiting: the PodDisruptionBudget', { timeout: 30_000 });
    await panel.getByTestId('drain-cancel').click();
    await expect(panel.getByTestId('drain-stage')).toHaveText(/^Cancelled: no more evictions are sent\. The node stays cordoned/);
    const before = sent.length;
    // A blocked eviction would be sent again after 5 s: nothing is.
    await page.waitForTimeout(6_500);
    expect(sent.length).toBe(before);
    expect((await json(request, `/api/v1/nodes/${node}`)).spec.unschedulable).toBe(true);
    await expect(panel.getByTestId('drain-start')).toBeEnabled();
  } finally {
    await cleanUp(request, node, budget);
  }
});
