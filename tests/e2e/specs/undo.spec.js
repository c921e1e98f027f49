// Rollout history and undo from a workload's screen (#37), as `kubectl rollout history` and
// `kubectl rollout undo --to-revision` do them: the revisions are the ReplicaSets the Deployment
// controls, any two are diffed, and undo sends kubectl's JSON patch of the template; the server
// then has the old template back.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

const NS = 'demo';
const JSON_ACCEPT = { headers: { Accept: 'application/json' } };

test('a Deployment\'s revisions are listed and diffed, and undo to revision 1 puts its template back', async ({ page, request }) => {
  const name = `undo-e2e-${Date.now().toString(36)}`;
  const base = `${simUrl()}/apis/apps/v1/namespaces/${NS}/deployments`;
  const created = await request.post(base, {
    data: {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name, namespace: NS, annotations: { 'kubernetes.io/change-cause': 'first' } },
      spec: {
        replicas: 1, selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.26' }] } },
      },
    },
  });
  expect(created.status()).toBe(201);
  const revisions = async () => {
    const list = await (await request.get(`${simUrl()}/apis/apps/v1/namespaces/${NS}/replicasets?labelSelector=app%3D${name}`, JSON_ACCEPT)).json();
    return list.items.map((rs) => rs.metadata.annotations?.['deployment.kubernetes.io/revision']).filter(Boolean).sort();
  };
  try {
    await expect.poll(revisions).toEqual(['1']);
    const changed = await request.patch(`${base}/${name}`, {
      headers: { 'Content-Type': 'application/merge-patch+json' },
      data: JSON.stringify({
        metadata: { annotations: { 'kubernetes.io/change-cause': 'second' } },
        spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
      }),
    });
    expect(changed.status()).toBe(200);
    await expect.poll(revisions).toEqual(['1', '2']);
    const sent = [];
    page.on('request', (r) => {
      if (r.method() === 'PATCH' && r.url().includes(`/deployments/${name}`)) sent.push({ type: r.headers()['content-type'], body: r.postData() });
    });

    await page.goto(`./?group=apps&version=v1&resource=deployments&namespace=${NS}&name=${name}`);
    await page.getByRole('group', { name: 'Operations' }).getByRole('button', { name: 'Undo rollout', exact: true }).click();
    const panel = page.getByTestId('operation-panel');
    // The history, newest first, as kubectl rollout history lists it.
    const rows = panel.getByTestId('revision-row');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0)).toContainText('second');
    await expect(rows.nth(0)).toContainText('nginx:1.27');
    await expect(rows.nth(1)).toContainText('first');
    await expect(rows.nth(1)).toContainText('nginx:1.26');
    // The last two revisions' templates compared, without the pod-template-hash label.
    const diff = panel.getByTestId('revision-diff');
    await expect(diff).toContainText(/-\s+- image: nginx:1\.26/);
    await expect(diff).toContainText(/\+\s+- image: nginx:1\.27/);
    await expect(diff).not.toContainText('pod-template-hash');

    // Undo to revision 1: kubectl's three requests, and its command.
    await panel.getByRole('radio', { name: 'Undo to revision 1' }).check();
    await expect(page.getByTestId('operation-kubectl')).toHaveText(`kubectl rollout undo deployment/${name} --to-revision=1 -n ${NS}`);
    const steps = page.getByTestId('operation-step');
    await expect(steps).toHaveCount(3);
    await expect(steps.nth(1)).toContainText(`GET /apis/apps/v1/namespaces/${NS}/replicasets?labelSelector=app%3D${name}`);
    await expect(steps.nth(2)).toContainText(`PATCH /apis/apps/v1/namespaces/${NS}/deployments/${name}`);
    await expect(steps.nth(2)).toContainText('Content-Type: application/json-patch+json');
    const previewed = JSON.parse(await steps.nth(2).locator('pre').innerText());
    await saveScreen(page, 'operations-undo');
    await panel.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.getByTestId('operation-sent')).toContainText('Sent: 200');
    // What was sent is what was shown, and the server has revision 1's template back.
    expect(sent.map((r) => r.type)).toEqual(['application/json-patch+json']);
    expect(JSON.parse(sent[0].body)).toEqual(previewed);
    expect(previewed[0]).toMatchObject({ op: 'replace', path: '/spec/template' });
    const after = await (await request.get(`${base}/${name}`, JSON_ACCEPT)).json();
    expect(after.spec.template.spec.containers[0].image).toBe('nginx:1.26');
    expect(after.metadata.annotations['kubernetes.io/change-cause']).toBe('first');
  } finally {
    await request.delete(`${base}/${name}`);
  }
});

// A StatefulSet's revisions are ControllerRevisions (`kubectl rollout history statefulset/NAME`):
// undo sends the chosen one's data, as its controller wrote it, as a strategic merge patch.
test('a StatefulSet\'s ControllerRevisions are its history, and undo sends revision 1\'s data back', async ({ page, request }) => {
  const name = `undo-sts-${Date.now().toString(36)}`;
  const base = `${simUrl()}/apis/apps/v1/namespaces/${NS}/statefulsets`;
  const created = await request.post(base, {
    data: {
      apiVersion: 'apps/v1', kind: 'StatefulSet',
      metadata: { name, namespace: NS, annotations: { 'kubernetes.io/change-cause': 'first' } },
      spec: {
        replicas: 1, serviceName: name, selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'db', image: 'postgres:16' }] } },
      },
    },
  });
  expect(created.status()).toBe(201);
  const history = async () => {
    const list = await (await request.get(`${simUrl()}/apis/apps/v1/namespaces/${NS}/controllerrevisions?labelSelector=app%3D${name}`, JSON_ACCEPT)).json();
    return list.items.map((cr) => cr.revision).sort();
  };
  try {
    await expect.poll(history).toEqual([1]);
    const changed = await request.patch(`${base}/${name}`, {
      headers: { 'Content-Type': 'application/merge-patch+json' },
      data: JSON.stringify({
        metadata: { annotations: { 'kubernetes.io/change-cause': 'second' } },
        spec: { template: { spec: { containers: [{ name: 'db', image: 'postgres:17' }] } } },
      }),
    });
    expect(changed.status()).toBe(200);
    await expect.poll(history).toEqual([1, 2]);
    const revisionOne = (await (await request.get(`${simUrl()}/apis/apps/v1/namespaces/${NS}/controllerrevisions?labelSelector=app%3D${name}`, JSON_ACCEPT)).json())
      .items.find((cr) => cr.revision === 1);
    const sent = [];
    page.on('request', (r) => {
      if (r.method() === 'PATCH' && r.url().includes(`/statefulsets/${name}`)) sent.push({ type: r.headers()['content-type'], body: r.postData() });
    });

    await page.goto(`./?group=apps&version=v1&resource=statefulsets&namespace=${NS}&name=${name}`);
    await page.getByRole('group', { name: 'Operations' }).getByRole('button', { name: 'Undo rollout', exact: true }).click();
    const panel = page.getByTestId('operation-panel');
    await expect(panel.getByRole('columnheader', { name: 'ControllerRevision' })).toBeVisible();
    const rows = panel.getByTestId('revision-row');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0)).toContainText('second');
    await expect(rows.nth(0)).toContainText('postgres:17');
    await expect(rows.nth(1)).toContainText(revisionOne.metadata.name);
    await expect(rows.nth(1)).toContainText('postgres:16');
    const diff = panel.getByTestId('revision-diff');
    await expect(diff).toContainText(/-\s+- image: postgres:16/);
    await expect(diff).toContainText(/\+\s+- image: postgres:17/);
    await expect(diff).not.toContainText('$patch');

    await panel.getByRole('radio', { name: 'Undo to revision 1' }).check();
    await expect(page.getByTestId('operation-kubectl')).toHaveText(`kubectl rollout undo statefulset/${name} --to-revision=1 -n ${NS}`);
    const steps = page.getByTestId('operation-step');
    await expect(steps).toHaveCount(3);
    await expect(steps.nth(1)).toContainText(`GET /apis/apps/v1/namespaces/${NS}/controllerrevisions?labelSelector=app%3D${name}`);
    await expect(steps.nth(2)).toContainText(`PATCH /apis/apps/v1/namespaces/${NS}/statefulsets/${name}`);
    await expect(steps.nth(2)).toContainText('Content-Type: application/strategic-merge-patch+json');
    await saveScreen(page, 'operations-undo-statefulset');
    await panel.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.getByTestId('operation-sent')).toContainText('Sent: 200');
    // What was sent is the revision's data as the server holds it, and the template is back.
    expect(sent.map((r) => r.type)).toEqual(['application/strategic-merge-patch+json']);
    expect(JSON.parse(sent[0].body)).toEqual(revisionOne.data);
    const after = await (await request.get(`${base}/${name}`, JSON_ACCEPT)).json();
    expect(after.spec.template.spec.containers[0].image).toBe('postgres:16');
    expect(after.spec.template.$patch).toBeUndefined();
  } finally {
    await request.delete(`${base}/${name}`);
  }
});
