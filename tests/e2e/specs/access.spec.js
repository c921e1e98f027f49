// Authorization awareness, as three users of the demo dataset meet it: viewer (view everywhere),
// dev (edit in demo, view in shop and default, nothing in kube-system, may list namespaces) and
// admin. The page carries the user's bearer token on every API request (as a browser behind an
// authenticating proxy would; kube-sim reads it from its users), and what the explorer shows is
// checked against the real kubectl asking the same kube-sim as the same user (`--as`, which
// kube-sim's default admin may impersonate).
const { spawnSync } = require('node:child_process');
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl, asUser, clickPastDisabled } = require('./helpers');

const REVIEW = /\/apis\/(authorization|authentication)\.k8s\.io\/v1\/self[a-z]*reviews$/;


/** The requests that could change something: every non-GET but the self reviews. */
function writes(sent) {
  return sent.filter((r) => r.method !== 'GET' && !(r.method === 'POST' && REVIEW.test(r.path)));
}

/** The real kubectl against the same kube-sim, as `user`. */
function kubectl(user, ...args) {
  const result = spawnSync('kubectl', ['--server', simUrl(), '--as', user, ...args], { encoding: 'utf8', timeout: 30_000 });
  if (result.error) throw result.error;
  return { code: result.status, out: result.stdout.trim(), err: result.stderr.trim() };
}

/** kubectl auth can-i's answer: "yes" or "no". */
function canI(user, ...args) {
  const { out, err } = kubectl(user, 'auth', 'can-i', ...args);
  if (out !== 'yes' && out !== 'no') throw new Error(`kubectl auth can-i ${args.join(' ')}: ${out} ${err}`);
  return out;
}

function deploymentUrl(ns, name) {
  return `./?group=apps&version=v1&resource=deployments&namespace=${ns}&name=${name}`;
}

test('viewer: the top bar says who, reading works, and Edit, Scale and Delete are disabled with the reason; nothing is written', async ({ page }) => {
  const sent = await asUser(page, 'viewer');
  await page.goto(deploymentUrl('demo', 'web'));
  await expect(page.getByTestId('identity-user')).toHaveText('viewer');
  await expect(page.getByTestId('identity-groups')).toContainText('system:authenticated');
  const whoami = JSON.parse(kubectl('viewer', 'auth', 'whoami', '-o', 'json').out);
  expect(whoami.status.userInfo.username).toBe('viewer');
  expect(whoami.status.userInfo.groups).toEqual(['system:authenticated']);

  // Reading what is allowed is not held up by the checks.
  await expect(page.getByRole('region', { name: 'Metadata' })).toBeVisible();
  const edit = page.getByRole('button', { name: 'Edit', exact: true });
  await expect(edit).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Scale…' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Delete…' })).toBeDisabled();
  const refusals = page.getByTestId('refusal');
  await expect(refusals.filter({ hasText: 'you may not update or patch deployments "web" of apps in demo' })).toHaveCount(1);
  await expect(refusals.filter({ hasText: 'kubectl auth can-i update deployments.apps/web -n demo' })).toHaveCount(1);
  await expect(refusals.filter({ hasText: 'you may not delete deployments "web" of apps in demo' })).toHaveCount(1);
  await expect(refusals.filter({ hasText: '--subresource=scale' })).toHaveCount(1);
  expect(canI('viewer', 'update', 'deployments.apps/web', '-n', 'demo')).toBe('no');
  expect(canI('viewer', 'patch', 'deployments.apps/web', '-n', 'demo')).toBe('no');
  expect(canI('viewer', 'delete', 'deployments.apps/web', '-n', 'demo')).toBe('no');
  expect(canI('viewer', 'get', 'deployments.apps/web', '-n', 'demo')).toBe('yes');

  await saveScreen(page, 'access-viewer-object');
  // A disabled action opens nothing and sends nothing, even clicked past its disabled state:
  // the panel closes as soon as it opens for an action refused.
  const sentBefore = sent.length;
  for (const action of [edit, page.getByRole('button', { name: 'Scale…' }), page.getByRole('button', { name: 'Delete…' })]) {
    await clickPastDisabled(action);
  }
  await expect(page.getByRole('textbox', { name: 'Object editor' })).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Scale', exact: true })).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Delete object', exact: true })).toHaveCount(0);
  await page.waitForTimeout(1_000);
  expect(writes(sent.slice(sentBefore))).toEqual([]);
  expect(writes(sent)).toEqual([]);
  expect(sent.some((r) => r.method === 'POST' && r.path.endsWith('/selfsubjectrulesreviews'))).toBe(true);
});

test('viewer: a type they may not list is marked in the sidebar, and its 403 is explained with the grant to ask for', async ({ page }) => {
  const sent = await asUser(page, 'viewer');
  await page.goto('./?group=&version=v1&resource=configmaps&namespace=demo');
  const sidebar = page.getByRole('navigation', { name: 'Resource types' });
  const secrets = sidebar.getByRole('button', { name: /^secrets/ });
  await expect(secrets.getByTestId('cannot-list')).toBeVisible();
  await expect(sidebar.getByRole('button', { name: /^configmaps/ }).getByTestId('cannot-list')).toHaveCount(0);
  expect(canI('viewer', 'list', 'secrets', '-n', 'demo')).toBe('no');
  expect(canI('viewer', 'list', 'configmaps', '-n', 'demo')).toBe('yes');
  // Create is refused in the collection too.
  await expect(page.getByRole('button', { name: 'Create…' })).toBeDisabled();
  await expect(page.getByTestId('refusal').filter({ hasText: 'you may not create configmaps in demo' })).toHaveCount(1);

  await secrets.click();
  await expect(page.getByTestId('status-code')).toHaveText('403');
  const explained = page.getByTestId('forbidden-explained');
  await expect(explained).toBeVisible();
  await expect(explained).toContainText('viewer');
  await expect(explained).toContainText('list');
  await expect(page.getByTestId('forbidden-command')).toHaveText('kubectl auth can-i list secrets -n demo');
  const grant = await page.getByTestId('forbidden-grant').textContent();
  expect(grant).toContain('kind: Role\n');
  expect(grant).toContain('namespace: demo');
  expect(grant).toMatch(/resources:\n\s*- secrets\n/);
  expect(grant).toMatch(/verbs:\n\s*- list\n/);
  expect(grant).toContain('kind: RoleBinding');
  expect(grant).toMatch(/name: viewer/);
  await saveScreen(page, 'access-forbidden');
  expect(writes(sent)).toEqual([]);
});

test('dev: may edit and create in demo, only read in shop, and is refused kube-system with the reason', async ({ page }) => {
  const sent = await asUser(page, 'dev');
  await page.goto(deploymentUrl('demo', 'web'));
  await expect(page.getByTestId('identity-user')).toHaveText('dev');
  await expect(page.getByRole('button', { name: 'Edit', exact: true })).toBeEnabled();
  await expect(page.getByRole('button', { name: 'Scale…' })).toBeEnabled();
  expect(canI('dev', 'patch', 'deployments.apps/web', '-n', 'demo')).toBe('yes');

  await page.goto(deploymentUrl('shop', 'cart'));
  await expect(page.getByRole('button', { name: 'Edit', exact: true })).toBeDisabled();
  await expect(page.getByTestId('refusal').filter({ hasText: 'you may not update or patch deployments "cart" of apps in shop' })).toHaveCount(1);
  expect(canI('dev', 'patch', 'deployments.apps/cart', '-n', 'shop')).toBe('no');

  await page.goto('./?group=apps&version=v1&resource=deployments&namespace=shop');
  await expect(page.getByRole('button', { name: 'Create…' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Delete collection…' })).toBeDisabled();
  await page.goto('./?group=apps&version=v1&resource=deployments&namespace=demo');
  await expect(page.getByRole('button', { name: 'Create…' })).toBeEnabled();
  await expect(page.getByRole('button', { name: 'Delete collection…' })).toBeEnabled();
  expect(canI('dev', 'create', 'deployments.apps', '-n', 'demo')).toBe('yes');
  expect(canI('dev', 'create', 'deployments.apps', '-n', 'shop')).toBe('no');

  await page.goto('./?group=&version=v1&resource=pods&namespace=kube-system');
  await expect(page.getByTestId('status-code')).toHaveText('403');
  await expect(page.getByTestId('forbidden-command')).toHaveText('kubectl auth can-i list pods -n kube-system');
  // It would open live, but the user may not watch pods there: it is read a page at a time, and
  // Live is disabled with the reason.
  await expect(page.getByTestId('mode-live')).toBeDisabled();
  await expect(page.getByTestId('refusal').filter({ hasText: 'you may not watch pods in kube-system' })).toHaveCount(1);
  expect(canI('dev', 'list', 'pods', '-n', 'kube-system')).toBe('no');
  // A live view opened from a link (watch=1) is refused too, and explained the same way.
  await page.goto('./?group=&version=v1&resource=pods&namespace=kube-system&watch=1');
  await expect(page.getByTestId('live-problem')).toContainText('403');
  // The live view starts with a streaming list (a watch with sendInitialEvents), or lists first.
  await expect(page.getByTestId('forbidden-command')).toHaveText(/^kubectl auth can-i (watch|list) pods -n kube-system$/);
  expect(canI('dev', 'watch', 'pods', '-n', 'kube-system')).toBe('no');
  expect(writes(sent)).toEqual([]);
});

// The Access view's matrix against kubectl auth can-i, cell by cell, for each user.
const CELLS = [
  ['pods', 'get'], ['pods', 'delete'], ['secrets', 'list'], ['configmaps', 'create'],
  ['deployments.apps', 'patch'], ['deployments.apps', 'deletecollection'], ['services', 'watch'],
];
for (const user of ['admin', 'dev', 'viewer']) {
  test(`${user}: the Access view is the can-i matrix of demo, and agrees with kubectl auth can-i`, async ({ page }) => {
    const sent = await asUser(page, user);
    await page.goto('./?namespace=demo&access=1');
    const matrix = page.getByRole('table', { name: 'Namespaced resource types' });
    await expect(matrix.locator('tr[data-resource="pods"] td[data-verb="get"]')).toHaveText(/^(yes|no)$/);
    for (const [resource, verb] of CELLS) {
      const want = canI(user, verb, resource, '-n', 'demo');
      await expect(matrix.locator(`tr[data-resource="${resource}"] td[data-verb="${verb}"]`), `${resource} ${verb}`).toHaveText(want);
    }
    // kubectl auth can-i --list and the rules table name the same resources.
    const listed = kubectl(user, 'auth', 'can-i', '--list', '-n', 'demo').out;
    expect(listed).toContain(user === 'admin' ? '*.*' : 'deployments.apps');
    await expect(page.getByTestId('access-rules')).toContainText(user === 'admin' ? '*.*' : 'deployments.apps');

    const filter = page.getByRole('searchbox', { name: 'Filter the matrix' });
    await filter.fill('deploy');
    await expect(matrix.locator('tbody tr')).toHaveCount(1);
    await filter.fill('');

    // Cluster-scoped types: one review each, on demand.
    await page.getByTestId('access-ask-cluster').click();
    const cluster = page.getByRole('table', { name: 'Cluster-scoped resource types' });
    const want = canI(user, 'list', 'namespaces');
    await expect(cluster.locator('tr[data-resource="namespaces"] td[data-verb="list"]')).toHaveText(want);
    await expect(cluster.locator('tr[data-resource="nodes"] td[data-verb="delete"]')).toHaveText(canI(user, 'delete', 'nodes'));
    await saveScreen(page, `access-view-${user}`);
    expect(writes(sent)).toEqual([]);
  });
}

test('when the review APIs are refused, the user is unknown, actions stay enabled, and the 403 that comes is explained', async ({ page }) => {
  const sent = await asUser(page, 'viewer');
  await page.route(
    (url) => REVIEW.test(url.pathname),
    (route) => route.fulfill({
      status: 403,
      contentType: 'application/json',
      body: JSON.stringify({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
        message: 'selfsubjectrulesreviews.authorization.k8s.io is forbidden: User "viewer" cannot create resource "selfsubjectrulesreviews" in API group "authorization.k8s.io" at the cluster scope',
      }),
    }),
  );
  await page.goto(deploymentUrl('demo', 'web'));
  await expect(page.getByTestId('identity-user')).toHaveText('unknown');
  await expect(page.getByTestId('identity-unknown-reason')).toContainText('refused');
  const del = page.getByRole('button', { name: 'Delete…' });
  await expect(del).toBeEnabled();
  await expect(page.getByRole('button', { name: 'Edit', exact: true })).toBeEnabled();
  await del.click();
  await page.getByRole('button', { name: /^Delete Deployment/ }).click();
  await page.getByRole('button', { name: /^Yes, delete/ }).click();
  await expect(page.getByTestId('status-code')).toHaveText('403');
  await expect(page.getByTestId('forbidden-command')).toHaveText('kubectl auth can-i delete deployments.apps/web -n demo');
  // The one write sent is the one the person asked for, and the server refused it.
  expect(writes(sent).map((r) => r.method)).toEqual(['DELETE']);
  const web = kubectl('admin', 'get', 'deployment', 'web', '-n', 'demo', '-o', 'name');
  expect(web.out).toBe('deployment.apps/web');
});
