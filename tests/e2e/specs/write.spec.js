// The write path as a new user meets it: edit an object, preview the exact request, send it with
// each of the five methods, dry-run, field validation, conflicts, create, delete, read-only mode.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl, clickPastDisabled } = require('./helpers');

const JSON_ACCEPT = { headers: { Accept: 'application/json' } };

async function serverObject(request, path) {
  const response = await request.get(`${simUrl()}${path}`, JSON_ACCEPT);
  return { status: response.status(), body: response.status() === 200 ? await response.json() : null };
}

async function replicasOnServer(request, ns, name) {
  const { body } = await serverObject(request, `/apis/apps/v1/namespaces/${ns}/deployments/${name}`);
  return body.spec.replicas;
}

function deploymentUrl(ns, name) {
  return `./?group=apps&version=v1&resource=deployments&namespace=${ns}&name=${name}`;
}

/** Opens the editor of the object on the page and waits for its text. */
async function openEditor(page, kind) {
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  const editor = page.getByRole('textbox', { name: 'Object editor' });
  await expect(editor).toHaveValue(new RegExp(`kind: ${kind}`));
  return editor;
}

/** Sets spec.replicas (the first `  replicas:` line; status comes after spec). */
async function setReplicas(editor, n) {
  const text = await editor.inputValue();
  expect(text).toMatch(/^ {2}replicas: \d+$/m);
  await editor.fill(text.replace(/^ {2}replicas: \d+$/m, `  replicas: ${n}`));
}

const sendButton = (page) => page.getByRole('button', { name: /^Send / });

test('edit a deployment\'s replicas with each of the five methods, previewing each request', async ({ page, request }) => {
  await page.goto(deploymentUrl('demo', 'web'));
  await expect(page.getByTestId('object-title')).toHaveText('Deployment web');
  const editor = await openEditor(page, 'Deployment');
  let current = await replicasOnServer(request, 'demo', 'web');
  const steps = [
    ['PUT (update)', 'PUT', 'application/json'],
    ['JSON patch', 'PATCH', 'application/json-patch+json'],
    ['Merge patch', 'PATCH', 'application/merge-patch+json'],
    ['Strategic merge', 'PATCH', 'application/strategic-merge-patch+json'],
    ['Server-side apply', 'PATCH', 'application/apply-patch+yaml'],
  ];
  for (const [index, [tab, method, contentType]] of steps.entries()) {
    const next = current + 1 + (index % 2);
    await page.getByRole('tab', { name: tab }).click();
    await setReplicas(editor, next);
    await expect(page.getByTestId('preview-method')).toHaveText(method);
    await expect(page.getByTestId('preview-content-type')).toHaveText(contentType);
    await expect(page.getByTestId('preview-url')).toContainText('fieldManager=kube-api-explorer');
    await expect(page.getByTestId('preview-url')).toContainText('fieldValidation=Strict');
    await expect(page.getByTestId('expected-changes')).toContainText(`spec.replicas Changed: ${current} → ${next}`);
    if (tab === 'JSON patch') {
      await expect(page.getByRole('textbox', { name: 'JSON patch operations' })).toHaveValue(
        new RegExp(`"op":"replace","path":"/spec/replicas","value":${next}`),
      );
      // Guard the change: the patch fails (422) if someone changed replicas meanwhile.
      await page.getByRole('checkbox', { name: 'test the old value of each changed field' }).check();
      await expect(page.getByTestId('preview-body')).toContainText(`"op":"test","path":"/spec/replicas","value":${current}`);
    }
    if (tab === 'Strategic merge') {
      await expect(page.getByTestId('schema-state')).toContainText('Merge keys from the server');
      await expect(page.getByTestId('preview-body')).toHaveText(`{"spec":{"replicas":${next}}}`);
    }
    if (tab === 'Server-side apply') {
      // The earlier writes made kube-api-explorer (Update) own spec.replicas: apply must force.
      await page.getByRole('checkbox', { name: 'Force (take over conflicting fields)' }).check();
      await expect(page.getByTestId('preview-url')).toContainText('force=true');
    }
    await saveScreen(page, `write-preview-${method.toLowerCase()}-${index}`);
    await sendButton(page).click();
    await expect(page.getByTestId('write-status')).toContainText('HTTP 200');
    await expect(page.getByTestId('written-changes')).toContainText(`spec.replicas Changed: ${current} → ${next}`);
    expect(await replicasOnServer(request, 'demo', 'web')).toBe(next);
    // The object view below shows the new state too.
    await expect(page.getByTestId('document-text')).toContainText(`replicas: ${next}`);
    current = next;
  }
  const { body } = await serverObject(request, '/apis/apps/v1/namespaces/demo/deployments/web');
  const managers = body.metadata.managedFields.map((m) => `${m.manager}/${m.operation}`);
  // Forcing moved spec.replicas from the Update entry (its only field) to the Apply entry, so
  // the emptied Update entry is gone.
  expect(managers).toContain('kube-api-explorer/Apply');
  expect(managers).not.toContain('kube-api-explorer/Update');
  await saveScreen(page, 'write-after-apply');
});

test('a stale PUT gets 409, shows live against the edit, and rebases', async ({ page, request }) => {
  await page.goto(deploymentUrl('demo', 'api'));
  const editor = await openEditor(page, 'Deployment');
  // Someone else changes the object after the editor read it.
  const touched = await request.patch(`${simUrl()}/apis/apps/v1/namespaces/demo/deployments/api`, {
    headers: { 'Content-Type': 'application/merge-patch+json', Accept: 'application/json' },
    data: { metadata: { labels: { touched: 'by-someone-else' } } },
  });
  expect(touched.status()).toBe(200);
  await setReplicas(editor, 4);
  await sendButton(page).click();
  await expect(page.getByTestId('write-status')).toContainText('HTTP 409');
  const conflict = page.getByTestId('put-conflict');
  await expect(conflict.getByTestId('conflict-changes')).toContainText('metadata.labels.touched Removed');
  await expect(conflict.getByTestId('conflict-changes')).toContainText('spec.replicas Changed: 2 → 4');
  await saveScreen(page, 'write-put-conflict');
  await page.getByRole('button', { name: 'Rebase my edit onto the live version' }).click();
  await expect(page.getByTestId('rebase-note')).toContainText('every change of yours applied');
  await expect(editor).toHaveValue(/touched: by-someone-else/);
  await expect(editor).toHaveValue(/^ {2}replicas: 4$/m);
  await sendButton(page).click();
  await expect(page.getByTestId('write-status')).toContainText('HTTP 200');
  const { body } = await serverObject(request, '/apis/apps/v1/namespaces/demo/deployments/api');
  expect(body.spec.replicas).toBe(4);
  expect(body.metadata.labels.touched).toBe('by-someone-else');
});

test('server-side apply conflicts are listed per field with their manager, then forced', async ({ page, request }) => {
  await page.goto(deploymentUrl('shop', 'cart'));
  const editor = await openEditor(page, 'Deployment');
  await page.getByRole('tab', { name: 'Server-side apply' }).click();
  await setReplicas(editor, 5);
  await expect(page.getByTestId('preview-body')).toHaveText(
    '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"cart","namespace":"shop"},"spec":{"replicas":5}}',
  );
  await sendButton(page).click();
  await expect(page.getByTestId('write-status')).toContainText('HTTP 409');
  const conflicts = page.getByTestId('apply-conflicts');
  await expect(conflicts).toContainText('.spec.replicas');
  await expect(conflicts).toContainText('kubectl-create');
  expect(await replicasOnServer(request, 'shop', 'cart')).toBe(2);
  await saveScreen(page, 'write-apply-conflict');
  await page.getByRole('button', { name: 'Force: take these fields over and apply' }).click();
  await expect(page.getByTestId('write-status')).toContainText('HTTP 200');
  expect(await replicasOnServer(request, 'shop', 'cart')).toBe(5);
  // The ownership gutter now names the applier on the replicas line.
  const replicasLine = page.locator('.editor__line-number', { hasText: /kube-api-explorer/ }).first();
  await expect(replicasLine).toBeVisible();
});

test('dry-run shows the server\'s defaults without persisting anything', async ({ page, request }) => {
  const path = '/apis/example.com/v1/namespaces/demo/widgets/w-05';
  await page.goto('./?group=example.com&version=v1&resource=widgets&namespace=demo&name=w-05');
  const editor = await openEditor(page, 'Widget');
  const before = (await serverObject(request, path)).body;
  expect(before.spec.replicas).toBe(5);
  const text = await editor.inputValue();
  await editor.fill(text.replace(/^ {2}replicas: 5\n/m, ''));
  await expect(page.getByTestId('expected-changes')).toContainText('spec.replicas Removed');
  await page.getByRole('button', { name: 'Dry run' }).click();
  await expect(page.getByTestId('write-status')).toContainText('Dry run: HTTP 200');
  await expect(page.getByTestId('write-status')).toContainText('nothing was persisted');
  // The schema's default (1) comes back in place of the removed value.
  await expect(page.getByTestId('dry-run-changes')).toContainText('spec.replicas Changed: 5 → 1');
  await page.getByText('Generated fields: their values will differ when sent for real').click();
  await saveScreen(page, 'write-dry-run');
  const after = (await serverObject(request, path)).body;
  expect(after.spec.replicas).toBe(5);
  expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
});

test('Strict validation lists the unknown field; Warn sends it and shows the warning', async ({ page, request }) => {
  await page.goto(deploymentUrl('kube-system', 'coredns'));
  const editor = await openEditor(page, 'Deployment');
  const text = await editor.inputValue();
  await editor.fill(text.replace(/^( {2}replicas: \d+)$/m, '$1\n  replics: 3'));
  await sendButton(page).click();
  await expect(page.getByTestId('write-status')).toContainText('HTTP 400');
  const problems = page.getByTestId('strict-problems');
  await expect(problems).toContainText('unknown field "spec.replics"');
  await expect(problems).toContainText('(line');
  await expect(page.locator('.editor__line-number--warning')).toHaveCount(1);
  await saveScreen(page, 'write-strict');
  await page.getByRole('combobox', { name: 'Field validation' }).selectOption('Warn');
  await expect(page.getByTestId('preview-url')).toContainText('fieldValidation=Warn');
  await sendButton(page).click();
  await expect(page.getByTestId('write-status')).toContainText('HTTP 200');
  await expect(page.getByTestId('write-warnings')).toContainText('unknown field "spec.replics"');
  await saveScreen(page, 'write-warn');
});

test('delete with a finalizer: being finalized, remaining finalizers, then gone', async ({ page, request }) => {
  const created = await request.post(`${simUrl()}/api/v1/namespaces/demo/configmaps`, {
    data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', namespace: 'demo', finalizers: ['example.com/hold'] }, data: { k: 'v' } },
  });
  expect(created.status()).toBe(201);
  await page.goto('./?group=&version=v1&resource=configmaps&namespace=demo&name=held');
  await page.getByRole('button', { name: 'Delete…', exact: true }).click();
  await page.getByRole('combobox', { name: 'Propagation policy' }).selectOption('Foreground');
  await expect(page.getByTestId('delete-preview')).toContainText('"propagationPolicy":"Foreground"');
  await page.getByRole('button', { name: 'Delete ConfigMap demo/held…' }).click();
  await expect(page.getByRole('alertdialog', { name: 'Confirm delete' })).toContainText('Delete ConfigMap demo/held?');
  await page.getByRole('button', { name: 'Yes, delete ConfigMap demo/held' }).click();
  await expect(page.getByTestId('delete-state')).toContainText('Being finalized');
  await expect(page.getByTestId('delete-state')).toContainText('Remaining: example.com/hold');
  await saveScreen(page, 'write-finalizing');
  expect((await serverObject(request, '/api/v1/namespaces/demo/configmaps/held')).status).toBe(200);
  // The finalizer's controller finishes its work.
  const released = await request.patch(`${simUrl()}/api/v1/namespaces/demo/configmaps/held`, {
    headers: { 'Content-Type': 'application/merge-patch+json' },
    data: { metadata: { finalizers: null } },
  });
  expect(released.status()).toBe(200);
  await expect(page.getByTestId('delete-state')).toHaveText('Deleted: the object is gone.');
  expect((await serverObject(request, '/api/v1/namespaces/demo/configmaps/held')).status).toBe(404);
});

test('create several objects from one YAML text, one request each, with per-document results', async ({ page, request }) => {
  await page.goto('./?group=&version=v1&resource=configmaps&namespace=demo');
  await page.getByRole('button', { name: 'Create…' }).click();
  await expect(page.getByText('The API has no transactions')).toBeVisible();
  const editor = page.getByRole('textbox', { name: 'Objects to create' });
  await editor.fill([
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: gen-\ndata:\n  a: "1"',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_Valid\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: made-by-create\ndata:\n  b: "2"',
  ].join('\n---\n'));
  await expect(page.getByTestId('create-plan').locator('li')).toHaveCount(3);
  await page.getByRole('button', { name: 'Create 3 object(s)' }).click();
  const results = page.getByTestId('create-results').locator('li');
  await expect(results).toHaveCount(3);
  await expect(results.nth(0)).toContainText(/created gen-\w+/);
  await expect(results.nth(1)).toContainText('422');
  await expect(results.nth(2)).toContainText('created made-by-create');
  await saveScreen(page, 'write-create');
  expect((await serverObject(request, '/api/v1/namespaces/demo/configmaps/made-by-create')).status).toBe(200);
});

test('deletecollection counts the filtered collection and names it in the confirmation', async ({ page, request }) => {
  for (const name of ['batch-a', 'batch-b']) {
    const created = await request.post(`${simUrl()}/api/v1/namespaces/demo/configmaps`, {
      data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'demo', labels: { batch: 'e2e' } } },
    });
    expect(created.status()).toBe(201);
  }
  await page.goto('./?group=&version=v1&resource=configmaps&namespace=demo&labelSelector=batch%3De2e');
  await page.getByRole('button', { name: 'Delete collection…' }).click();
  await expect(page.getByTestId('deletecollection-count')).toHaveText('2 object(s) match now.');
  await page.getByRole('button', { name: 'Delete these…' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Confirm delete collection' });
  await expect(confirm).toContainText('Delete 2 object(s): configmaps in namespace demo with labels batch=e2e?');
  await saveScreen(page, 'write-deletecollection');
  await confirm.getByRole('button', { name: /^Yes, delete 2 configmaps/ }).click();
  await expect(page.getByTestId('deletecollection-result')).toContainText('HTTP 200');
  await expect(page.getByTestId('deletecollection-count')).toHaveText('0 object(s) match now.');
  const list = await (await request.get(`${simUrl()}/api/v1/namespaces/demo/configmaps?labelSelector=batch%3De2e`, JSON_ACCEPT)).json();
  expect(list.items).toHaveLength(0);
});

test('read-only mode: the page sends nothing but GETs and the self reviews, which store nothing', async ({ page, request }) => {
  // The self reviews (who am I, what may I do) are POSTs that store nothing; nothing else but GETs.
  const writesIn = (sent) => sent.filter((m) => !m.startsWith('GET ') && !/^POST \S+\/apis\/authorization\.k8s\.io\/v1\/self[a-z]*reviews$|^POST \S+\/apis\/authentication\.k8s\.io\/v1\/selfsubjectreviews$/.test(m));
  const methods = [];
  page.on('request', (r) => methods.push(`${r.method()} ${r.url()}`));
  await page.goto(deploymentUrl('demo', 'web'));
  const toggle = page.getByRole('checkbox', { name: 'Read-only' });
  await toggle.check();
  const before = await replicasOnServer(request, 'demo', 'web');
  const editor = await openEditor(page, 'Deployment');
  await setReplicas(editor, before + 3);
  await expect(sendButton(page)).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Dry run' })).toBeDisabled();
  await expect(page.getByText('Read-only mode: nothing can be sent.').first()).toBeVisible();
  // Even a click past the disabled state sends nothing: no write (nor dry run) in the page's
  // request log after it.
  const sentBefore = methods.length;
  await clickPastDisabled(sendButton(page));
  await clickPastDisabled(page.getByRole('button', { name: 'Dry run' }));
  await page.waitForTimeout(1_000);
  expect(writesIn(methods.slice(sentBefore))).toEqual([]);
  await page.getByRole('button', { name: 'Delete…', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Delete Deployment demo/web…' })).toBeDisabled();
  await page.goto('./?group=&version=v1&resource=configmaps&namespace=demo');
  // A reload starts writable again; switch read-only on and try to create.
  await page.getByRole('checkbox', { name: 'Read-only' }).check();
  await page.getByRole('button', { name: 'Create…' }).click();
  await expect(page.getByRole('button', { name: /^Create \d+ object/ })).toBeDisabled();
  await saveScreen(page, 'write-read-only');
  expect(await replicasOnServer(request, 'demo', 'web')).toBe(before);
  expect(writesIn(methods)).toEqual([]);
  expect(methods.length).toBeGreaterThan(3);
});

test('edit as JSON and apply as CBOR; the JSON gutter names the owners', async ({ page, request }) => {
  const created = await request.post(`${simUrl()}/api/v1/namespaces/demo/configmaps?fieldManager=e2e-setup`, {
    data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cbor-apply', namespace: 'demo' }, data: { k: 'v' } },
  });
  expect(created.status()).toBe(201);
  await page.goto('./?group=&version=v1&resource=configmaps&namespace=demo&name=cbor-apply');
  const editor = await openEditor(page, 'ConfigMap');
  await page.getByRole('group', { name: 'Edit as' }).getByRole('button', { name: 'JSON' }).click();
  await expect(editor).toHaveValue(/"kind": "ConfigMap"/);
  await expect(page.locator('.editor__line-number', { hasText: 'e2e-setup' }).first()).toBeVisible();
  const text = await editor.inputValue();
  await editor.fill(text.replace('"k": "v"', '"k": "from-cbor"'));
  await page.getByRole('tab', { name: 'Server-side apply' }).click();
  await page.getByRole('checkbox', { name: 'Send as CBOR (application/apply-patch+cbor)' }).check();
  await page.getByRole('checkbox', { name: 'Force (take over conflicting fields)' }).check();
  await expect(page.getByTestId('preview-content-type')).toHaveText('application/apply-patch+cbor');
  // A binary body is previewed as a hex dump.
  await expect(page.getByTestId('preview-body')).toContainText('00000000  ');
  await sendButton(page).click();
  await expect(page.getByTestId('write-status')).toContainText('HTTP 200');
  const { body } = await serverObject(request, '/api/v1/namespaces/demo/configmaps/cbor-apply');
  expect(body.data.k).toBe('from-cbor');
  expect(body.metadata.managedFields.map((m) => `${m.manager}/${m.operation}`)).toContain('kube-api-explorer/Apply');
  await saveScreen(page, 'write-json-cbor');
});

test('strategic merge is refused for a custom resource, with the reason', async ({ page }) => {
  await page.goto('./?group=example.com&version=v1&resource=widgets&namespace=demo&name=w-04');
  const editor = await openEditor(page, 'Widget');
  const text = await editor.inputValue();
  await editor.fill(text.replace(/color: \w+/, 'color: purple'));
  await page.getByRole('tab', { name: 'Strategic merge' }).click();
  await expect(page.getByTestId('plan-error')).toContainText('strategic merge patch is not supported for custom resources');
  await expect(page.getByTestId('plan-error')).toContainText('415');
  await expect(sendButton(page)).toBeDisabled();
  await page.getByRole('tab', { name: 'Merge patch' }).click();
  await expect(page.getByTestId('preview-body')).toHaveText('{"spec":{"color":"purple"}}');
});

test('the field manager is configurable and remembered across reloads', async ({ page }) => {
  await page.goto(deploymentUrl('demo', 'web'));
  await openEditor(page, 'Deployment');
  const manager = page.getByRole('textbox', { name: 'Field manager' });
  await expect(manager).toHaveValue('kube-api-explorer');
  await manager.fill('my-team');
  await manager.press('Tab');
  await expect(page.getByTestId('preview-url')).toContainText('fieldManager=my-team');
  await page.reload();
  await openEditor(page, 'Deployment');
  await expect(page.getByRole('textbox', { name: 'Field manager' })).toHaveValue('my-team');
  await expect(page.getByTestId('preview-url')).toContainText('fieldManager=my-team');
});
