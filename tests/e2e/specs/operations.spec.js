// Operations on an object's screen as a new user meets them (#37): each previews its exact
// requests (kubectl's bytes), copies them as kubectl and curl, sends them, and the cluster
// (kube-sim's controllers) does what it would: a restart rolls out a new ReplicaSet, a cordoned
// node is unschedulable, a Job made now runs to completion.
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl, asUser, clickPastDisabled } = require('./helpers');

const JSON_ACCEPT = { headers: { Accept: 'application/json' } };

async function get(request, path) {
  const response = await request.get(`${simUrl()}${path}`, JSON_ACCEPT);
  expect(response.status()).toBe(200);
  return response.json();
}

function objectUrl(group, resource, ns, name) {
  const namespace = ns ? `&namespace=${ns}` : '';
  return `./?group=${group}&version=v1&resource=${resource}${namespace}&name=${name}`;
}

const panel = (page) => page.getByTestId('operation-panel');
const steps = (page) => page.getByTestId('operation-step');
const operation = (page, name) => page.getByRole('group', { name: 'Operations' }).getByRole('button', { name, exact: true });

async function webReplicaSets(request) {
  const list = await get(request, '/apis/apps/v1/namespaces/demo/replicasets');
  return list.items.filter((rs) => (rs.metadata.ownerReferences || []).some((o) => o.name === 'web'));
}

test('Restart on a Deployment previews kubectl\'s patch, sends it, and a new ReplicaSet rolls out', async ({ page, context, request }) => {
  const before = await webReplicaSets(request);
  // The ReplicaSets, live in a second tab while the first restarts the Deployment.
  const live = await context.newPage();
  await live.goto('./?group=apps&version=v1&resource=replicasets&namespace=demo&watch=1');
  await expect(live.getByText(before[0].metadata.name, { exact: true })).toBeVisible();
  await page.goto(objectUrl('apps', 'deployments', 'demo', 'web'));
  await operation(page, 'Restart').click();
  await expect(steps(page)).toHaveCount(2);
  await expect(steps(page).nth(0)).toContainText('kubectl reads the object first');
  await expect(steps(page).nth(0)).toContainText('GET /apis/apps/v1/namespaces/demo/deployments/web');
  const write = steps(page).nth(1);
  await expect(write).toContainText('PATCH /apis/apps/v1/namespaces/demo/deployments/web?fieldManager=kubectl-rollout');
  await expect(write).toContainText('Content-Type: application/strategic-merge-patch+json');
  await expect(write.locator('pre')).toHaveText(/^\{"spec":\{"template":\{"metadata":\{"annotations":\{"kubectl\.kubernetes\.io\/restartedAt":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\}\}\}\}\}$/);
  await expect(page.getByTestId('operation-kubectl')).toHaveText('kubectl rollout restart deployment/web -n demo');
  await expect(page.getByTestId('operation-curl')).toContainText("curl -X PATCH -H 'Accept: application/json' -H 'Content-Type: application/strategic-merge-patch+json' --data-binary '{\"spec\"");
  await expect(panel(page)).toContainText('kubectl offers no dry run for this command.');
  await saveScreen(page, 'operations-restart-preview');
  const sentBody = JSON.parse(await write.locator('pre').innerText());
  await panel(page).getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByTestId('operation-sent')).toContainText('Sent: 200');
  const stamp = sentBody.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt'];
  const web = await get(request, '/apis/apps/v1/namespaces/demo/deployments/web');
  expect(web.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt']).toBe(stamp);
  expect(web.metadata.managedFields.some((f) => f.manager === 'kubectl-rollout')).toBe(true);
  await expect.poll(async () => (await webReplicaSets(request)).length).toBe(before.length + 1);
  // The new ReplicaSet appears in the live collection, without a reload.
  const fresh = (await webReplicaSets(request)).find((rs) => !before.some((b) => b.metadata.uid === rs.metadata.uid));
  await expect(live.getByText(fresh.metadata.name, { exact: true })).toBeVisible();
  await saveScreen(live, 'operations-restart-replicasets');
});

test('Pause refuses Restart as kubectl does; Resume sends spec.paused null', async ({ page, request }) => {
  await page.goto(objectUrl('apps', 'deployments', 'demo', 'web'));
  await operation(page, 'Pause rollout').click();
  await expect(steps(page).nth(1).locator('pre')).toHaveText('{"spec":{"paused":true}}');
  await panel(page).getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByTestId('operation-sent')).toContainText('Sent: 200');
  expect((await get(request, '/apis/apps/v1/namespaces/demo/deployments/web')).spec.paused).toBe(true);
  await expect(page.getByTestId('operation-refused')).toHaveText('Nothing to send: already paused');
  await operation(page, 'Restart').click();
  await expect(page.getByTestId('operation-refused')).toHaveText('Nothing to send: can\'t restart paused deployment (run rollout resume first)');
  await expect(panel(page).getByRole('button', { name: 'Send', exact: true })).toBeDisabled();
  await saveScreen(page, 'operations-restart-paused');
  await operation(page, 'Resume rollout').click();
  await expect(steps(page).nth(1).locator('pre')).toHaveText('{"spec":{"paused":null}}');
  await expect(page.getByTestId('operation-kubectl')).toHaveText('kubectl rollout resume deployment/web -n demo');
  await panel(page).getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByTestId('operation-sent')).toContainText('Sent: 200');
  expect((await get(request, '/apis/apps/v1/namespaces/demo/deployments/web')).spec.paused).toBeUndefined();
});

test('Restart on a StatefulSet and a DaemonSet patches each one\'s template', async ({ page, request }) => {
  for (const [ns, resource, name] of [['shop', 'statefulsets', 'db'], ['kube-system', 'daemonsets', 'kube-proxy']]) {
    await page.goto(objectUrl('apps', resource, ns, name));
    await operation(page, 'Restart').click();
    await expect(page.getByTestId('operation-kubectl')).toHaveText(`kubectl rollout restart ${resource.slice(0, -1)}/${name} -n ${ns}`);
    await expect(operation(page, 'Pause rollout')).toHaveCount(0);
    await panel(page).getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.getByTestId('operation-sent')).toContainText('Sent: 200');
    const object = await get(request, `/apis/apps/v1/namespaces/${ns}/${resource}/${name}`);
    expect(object.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt']).toMatch(/Z$/);
  }
});

test('Cordon a node with a server dry run first, then for real; Uncordon', async ({ page, request }) => {
  await page.goto(objectUrl('', 'nodes', null, 'node-3'));
  await operation(page, 'Cordon').click();
  await panel(page).getByRole('checkbox', { name: /Dry run/ }).check();
  await expect(steps(page).nth(1)).toContainText('PATCH /api/v1/nodes/node-3?dryRun=All');
  await expect(steps(page).nth(1).locator('pre')).toHaveText('{"spec":{"unschedulable":true}}');
  await expect(page.getByTestId('operation-kubectl')).toHaveText('kubectl cordon node-3 --dry-run=server');
  await panel(page).getByRole('button', { name: 'Send as dry run' }).click();
  await expect(page.getByTestId('operation-sent')).toContainText('Dry run: 200');
  expect((await get(request, '/api/v1/nodes/node-3')).spec.unschedulable).toBeUndefined();
  await panel(page).getByRole('checkbox', { name: /Dry run/ }).uncheck();
  await expect(steps(page).nth(1).locator('code')).toHaveText('PATCH /api/v1/nodes/node-3');
  await panel(page).getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByTestId('operation-sent')).toContainText('Sent: 200');
  expect((await get(request, '/api/v1/nodes/node-3')).spec.unschedulable).toBe(true);
  await expect(page.getByTestId('operation-refused')).toHaveText('Nothing to send: already cordoned');
  await saveScreen(page, 'operations-cordon');
  await operation(page, 'Uncordon').click();
  await expect(steps(page).nth(1).locator('pre')).toHaveText('{"spec":{"unschedulable":null}}');
  await panel(page).getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByTestId('operation-sent')).toContainText('Sent: 200');
  expect((await get(request, '/api/v1/nodes/node-3')).spec.unschedulable).toBeUndefined();
});

test('Run now on a CronJob posts kubectl create job --from\'s Job, which completes', async ({ page, request }) => {
  const cronjob = await get(request, '/apis/batch/v1/namespaces/shop/cronjobs/report');
  await page.goto(objectUrl('batch', 'cronjobs', 'shop', 'report'));
  await operation(page, 'Run now').click();
  const name = await panel(page).getByRole('textbox', { name: 'Job name' }).inputValue();
  expect(name).toMatch(/^report-manual-\d+$/);
  await expect(steps(page).nth(1)).toContainText('POST /apis/batch/v1/namespaces/shop/jobs?fieldManager=kubectl-create&fieldValidation=Strict');
  const body = JSON.parse(await steps(page).nth(1).locator('pre').innerText());
  expect(body.metadata.annotations).toEqual({ 'cronjob.kubernetes.io/instantiate': 'manual' });
  expect(body.metadata.ownerReferences).toEqual([{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'report', uid: cronjob.metadata.uid, controller: true }]);
  expect(body.spec).toEqual(cronjob.spec.jobTemplate.spec);
  await expect(page.getByTestId('operation-kubectl')).toHaveText(`kubectl create job ${name} --from=cronjob/report -n shop`);
  // A bad name is refused before anything is sent.
  await panel(page).getByRole('textbox', { name: 'Job name' }).fill('Report_1');
  await expect(page.getByTestId('operation-refused')).toContainText('the Job\'s name "Report_1" must be lower-case');
  await expect(panel(page).getByRole('button', { name: 'Send', exact: true })).toBeDisabled();
  await panel(page).getByRole('textbox', { name: 'Job name' }).fill(name);
  await panel(page).getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByTestId('operation-sent')).toContainText('Sent: 201');
  await saveScreen(page, 'operations-run-now');
  await expect.poll(async () => {
    const job = await get(request, `/apis/batch/v1/namespaces/shop/jobs/${name}`);
    return (job.status.conditions || []).some((c) => c.type === 'Complete' && c.status === 'True');
  }, { timeout: 30_000 }).toBe(true);
  await page.getByTestId('operation-job').click();
  await expect(page.getByTestId('object-title')).toHaveText(`Job ${name}`);
  await expect(page.getByText('Complete', { exact: true }).first()).toBeVisible();
  await saveScreen(page, 'operations-run-now-job');
});

test('Suspend and resume a CronJob\'s schedule, as kubectl patch', async ({ page, request }) => {
  await page.goto(objectUrl('batch', 'cronjobs', 'shop', 'report'));
  await operation(page, 'Suspend').click();
  await expect(steps(page).nth(0)).toContainText('kubectl patch writes without reading');
  await expect(steps(page).nth(1)).toContainText('PATCH /apis/batch/v1/namespaces/shop/cronjobs/report?fieldManager=kubectl-patch');
  await expect(page.getByTestId('operation-kubectl')).toHaveText('kubectl patch cronjob/report -p \'{"spec":{"suspend":true}}\' -n shop');
  await panel(page).getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByTestId('operation-sent')).toContainText('Sent: 200');
  expect((await get(request, '/apis/batch/v1/namespaces/shop/cronjobs/report')).spec.suspend).toBe(true);
  await operation(page, 'Resume schedule').click();
  await expect(steps(page).nth(1).locator('pre')).toHaveText('{"spec":{"suspend":false}}');
  await panel(page).getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByTestId('operation-sent')).toContainText('Sent: 200');
  expect((await get(request, '/apis/batch/v1/namespaces/shop/cronjobs/report')).spec.suspend).toBe(false);
});

test('the viewer sees the operations disabled with the reason and sends nothing', async ({ page }) => {
  const sent = await asUser(page, 'viewer');
  await page.goto(objectUrl('apps', 'deployments', 'demo', 'web'));
  await expect(operation(page, 'Restart')).toBeDisabled();
  const refusals = page.getByTestId('refusal');
  await expect(refusals.filter({ hasText: 'Restart' }).filter({ hasText: 'kubectl auth can-i patch deployments.apps/web -n demo' })).toHaveCount(1);
  await saveScreen(page, 'operations-viewer');
  await clickPastDisabled(operation(page, 'Restart'));
  await expect(panel(page)).toHaveCount(0);
  expect(sent.filter((r) => r.method === 'PATCH')).toEqual([]);
});

test('read-only mode shows the plan and sends nothing, even past the disabled Send', async ({ page, request }) => {
  const methods = [];
  page.on('request', (r) => methods.push(r.method()));
  await page.goto(objectUrl('', 'nodes', null, 'node-2'));
  await page.getByRole('checkbox', { name: 'Read-only' }).check();
  await operation(page, 'Cordon').click();
  await expect(steps(page)).toHaveCount(2);
  await expect(panel(page).getByText('Read-only mode: nothing can be sent.')).toBeVisible();
  await clickPastDisabled(panel(page).getByRole('button', { name: 'Send', exact: true }));
  await page.waitForTimeout(1_000);
  expect(methods.filter((m) => m === 'PATCH')).toEqual([]);
  expect((await get(request, '/api/v1/nodes/node-2')).spec.unschedulable).toBeUndefined();
});

// The real kubectl (as in scripts/kubectl-conformance), against the same kube-sim: its -v=8 log
// names each request's method, URL and headers, and the body of every JSON one.
function kubeconfig() {
  const file = path.join(os.tmpdir(), `operations-spec-kubeconfig-${process.pid}.yaml`);
  fs.writeFileSync(file, [
    'apiVersion: v1', 'kind: Config',
    `clusters: [{name: sim, cluster: {server: "${simUrl()}"}}]`,
    'contexts: [{name: sim, context: {cluster: sim}}]', 'current-context: sim', 'users: []', '',
  ].join('\n'));
  return file;
}

/** The write kubectl sends for `args`: its method and path with query, Content-Type and body (JSON text, or null for protobuf). */
function kubectlWrite(args) {
  const run = spawnSync('kubectl', ['--kubeconfig', kubeconfig(), '-v=8', ...args], { encoding: 'utf8' });
  if (run.error) throw new Error(`the real kubectl did not run (${run.error.message}): it is needed to compare the plans with its requests`);
  expect(run.status, `kubectl ${args.join(' ')}: ${run.stderr.slice(-500)}`).toBe(0);
  const lines = run.stderr.split('\n').map((line) => line.replace(/^[IWE]\d{4} [\d:.]+\s+\d+ [\w.]+:\d+\] /, ''));
  const at = lines.findIndex((line) => /^(PATCH|POST|PUT|DELETE) http/.test(line));
  expect(at, `kubectl ${args.join(' ')} sent no write`).toBeGreaterThan(-1);
  const [method, url] = lines[at].split(' ');
  const { pathname, search } = new URL(url);
  const header = lines.slice(at + 1).find((line) => /^\s+Content-Type: /.test(line));
  const bodyLine = lines.slice(0, at).reverse().find((line) => line.startsWith('"Request Body" body='));
  const quoted = bodyLine.slice('"Request Body" body='.length);
  return {
    line: `${method} ${decodeURIComponent(pathname)}${search}`,
    contentType: header.trim().slice('Content-Type: '.length),
    body: quoted.startsWith('"') ? JSON.parse(quoted) : null,
  };
}

/** The write the panel shows, in kubectlWrite's shape. */
async function shownWrite(page) {
  const write = steps(page).nth(1);
  return {
    line: (await write.locator('code').innerText()).trim(),
    contentType: (await write.getByText(/^Content-Type: /).innerText()).slice('Content-Type: '.length).trim(),
    body: (await write.locator('pre').innerText()).trim(),
  };
}

const stamp = (text) => text.replace(/("kubectl\.kubernetes\.io\/restartedAt":)"[^"]*"/, '$1"<time>"');

test('each previewed write is the request the real kubectl sends for the same command', async ({ page }) => {
  const cases = [
    ['apps', 'deployments', 'demo', 'api', 'Restart', ['rollout', 'restart', 'deployment/api', '-n', 'demo']],
    ['apps', 'deployments', 'demo', 'api', 'Pause rollout', ['rollout', 'pause', 'deployment/api', '-n', 'demo']],
    ['apps', 'deployments', 'demo', 'api', 'Resume rollout', ['rollout', 'resume', 'deployment/api', '-n', 'demo']],
    ['apps', 'statefulsets', 'shop', 'db', 'Restart', ['rollout', 'restart', 'statefulset/db', '-n', 'shop']],
    ['', 'nodes', null, 'node-1', 'Cordon', ['cordon', 'node-1', '--dry-run=server'], { dryRun: true }],
    ['batch', 'cronjobs', 'shop', 'report', 'Suspend', ['patch', 'cronjob/report', '-p', '{"spec":{"suspend":true}}', '-n', 'shop']],
    ['batch', 'cronjobs', 'shop', 'report', 'Resume schedule', ['patch', 'cronjob/report', '-p', '{"spec":{"suspend":false}}', '-n', 'shop']],
  ];
  for (const [group, resource, ns, name, button, args, options] of cases) {
    await page.goto(objectUrl(group, resource, ns, name));
    await operation(page, button).click();
    if (options && options.dryRun) await panel(page).getByRole('checkbox', { name: /Dry run/ }).check();
    await expect(steps(page)).toHaveCount(2);
    await expect(page.getByTestId('operation-kubectl')).toHaveText(`kubectl ${args.map((a) => (a.startsWith('{') ? `'${a}'` : a)).join(' ')}`);
    const shown = await shownWrite(page);
    const sent = kubectlWrite(args);
    expect({ ...shown, body: stamp(shown.body) }, `${button} on ${resource}/${name}`).toEqual({ ...sent, body: stamp(sent.body) });
  }
  // Run now: the same URL; kubectl's typed client sends the Job as protobuf, the explorer as JSON, and says so.
  await page.goto(objectUrl('batch', 'cronjobs', 'shop', 'report'));
  await operation(page, 'Run now').click();
  await panel(page).getByRole('textbox', { name: 'Job name' }).fill('report-by-kubectl');
  await panel(page).getByRole('checkbox', { name: /Dry run/ }).check();
  await expect(page.getByTestId('operation-kubectl')).toHaveText('kubectl create job report-by-kubectl --from=cronjob/report -n shop --dry-run=server');
  const shown = await shownWrite(page);
  const sent = kubectlWrite(['create', 'job', 'report-by-kubectl', '--from=cronjob/report', '-n', 'shop', '--dry-run=server']);
  expect(shown.line).toBe(sent.line);
  expect([shown.contentType, sent.contentType]).toEqual(['application/json', 'application/vnd.kubernetes.protobuf']);
  await expect(panel(page)).toContainText('kubectl sends the same Job as protobuf; the explorer sends it as JSON.');
});
