// The schema explorer (#19 item 1): a kind's OpenAPI v3 schema as `kubectl explain --recursive`
// walks it, read through /openapi/v3's index and held by the document's hash; deep links
// (`explain=PATH`), search, CEL rules, and two versions of a kind compared (`compare=VERSION`).
// The fields and types shown are checked against the real kubectl explain asking the same
// kube-sim.
const { spawnSync } = require('node:child_process');
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

/** The real kubectl against the same kube-sim. */
function kubectl(...args) {
  const result = spawnSync('kubectl', ['--server', simUrl(), ...args], { encoding: 'utf8', timeout: 30_000 });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** `kubectl explain TARGET`'s FIELDS, as "name <type>[ -required-]" lines. */
function explainFields(target) {
  const out = kubectl('explain', target);
  const fields = out.slice(out.indexOf('FIELDS:'));
  return [...fields.matchAll(/^ {2}(\S+)\t<(.+?)>( -required-)?$/gm)].map((m) => `${m[1]} <${m[2]}>${m[3] || ''}`);
}

/** The rows the page shows directly below PATH ('' for the kind's own fields), as
 * "name <type>[ -required-]" lines. */
async function rowsBelow(page, path) {
  await expect(page.getByTestId('explain-tree').locator('li').first()).toBeVisible();
  return page.locator('li.explain__row').evaluateAll(
    (rows, parent) =>
      rows
        .filter((row) => {
          const p = row.dataset.path;
          const at = p.lastIndexOf('.');
          return (at < 0 ? '' : p.slice(0, at)) === parent;
        })
        .map((row) => {
          const name = row.querySelector('a').textContent;
          const type = row.querySelector('.explain__type').textContent;
          return `${name} ${type}${row.querySelector('.explain__required') ? ' -required-' : ''}`;
        }),
    path,
  );
}

/** The requests for a group version's OpenAPI document (and the index), as sent. */
function openapiRequests(page) {
  const sent = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/openapi/v3')) sent.push(url.pathname + url.search);
  });
  return sent;
}

test('a Deployment is walked down to its containers from the collection, as kubectl explain lists it', async ({ page }) => {
  await page.goto('./?group=apps&version=v1&resource=deployments&namespace=demo');
  await page.getByTestId('explain-link').click();
  await expect(page).toHaveURL(/explain=(&|$)/);
  await expect(page.getByTestId('explain-title')).toHaveText('Schema of Deployment · apps/v1');
  await expect(page.getByTestId('explain-field')).toHaveText('Deployment');
  // Keyboard: the toggles are buttons with names, opened with Enter.
  const open = async (path) => {
    const toggle = page.getByRole('button', { name: `Fields of ${path}`, exact: true });
    await toggle.focus();
    await page.keyboard.press('Enter');
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  };
  await open('spec');
  expect(await rowsBelow(page, 'spec')).toEqual(explainFields('deployment.spec'));
  await open('spec.template');
  await open('spec.template.spec');
  await page.locator('li.explain__row[data-path="spec.template.spec.containers"]').getByRole('link').click();
  await expect(page).toHaveURL(/explain=spec.template.spec.containers(&|$)/);
  const details = page.getByTestId('explain-details');
  await expect(page.getByTestId('explain-field')).toHaveText('spec.template.spec.containers');
  await expect(details).toContainText('<[]Container>');
  await expect(details).toContainText('x-kubernetes-patch-merge-key');
  await expect(details).toContainText('List of containers belonging to the pod');
  // The field chosen is open; Enter on its toggle closes it and opens it again.
  const containers = page.getByRole('button', { name: 'Fields of spec.template.spec.containers', exact: true });
  await expect(containers).toHaveAttribute('aria-expanded', 'true');
  await containers.focus();
  await page.keyboard.press('Enter');
  await expect(containers).toHaveAttribute('aria-expanded', 'false');
  await expect(page.locator('li.explain__row[data-path="spec.template.spec.containers.image"]')).toHaveCount(0);
  await open('spec.template.spec.containers');
  expect(await rowsBelow(page, 'spec.template.spec.containers')).toEqual(explainFields('deployment.spec.template.spec.containers'));
  await saveScreen(page, 'schema-deployment');
  // Back leaves the explorer for the collection it came from.
  await page.getByTestId('explain-back').click();
  await expect(page).not.toHaveURL(/explain=/);
  await expect(page.getByRole('region', { name: 'deployments collection' })).toBeVisible();
});

test('a deep link opens the way to its field; types use kubectl explain words', async ({ page }) => {
  await page.goto('./?group=&version=v1&resource=pods&explain=spec.containers.resources');
  await expect(page.getByTestId('explain-field')).toHaveText('spec.containers.resources');
  const current = page.locator('li.explain__row[aria-current="true"]');
  await expect(current).toHaveAttribute('data-path', 'spec.containers.resources');
  expect(await rowsBelow(page, 'spec.containers.resources')).toEqual(explainFields('pods.spec.containers.resources'));
  await expect(page.locator('li.explain__row[data-path="spec.containers.resources.limits"] .explain__type')).toHaveText('<map[string]Quantity>');
  await page.goto('./?group=&version=v1&resource=services&explain=spec.ports.targetPort');
  const details = page.getByTestId('explain-details');
  await expect(details).toContainText('<IntOrString>');
  await expect(details).toContainText('int-or-string');
  await page.goto('./?group=&version=v1&resource=pods&explain=metadata.creationTimestamp');
  await expect(details).toContainText('date-time');
  // A path the kind does not have says so.
  await page.goto('./?group=&version=v1&resource=pods&explain=spec.nope');
  await expect(details).toContainText('Pod has no field spec.nope');
});

test('a CRD with CEL rules: the rules, messages, enum, default and list types are shown', async ({ page }) => {
  await page.goto('./?group=example.com&version=v1&resource=widgets&explain=spec');
  const details = page.getByTestId('explain-details');
  await expect(page.getByTestId('explain-rules')).toContainText("self.size != 'small' || self.replicas <= 3");
  await expect(page.getByTestId('explain-rules')).toContainText('a small widget runs at most 3 replicas');
  await expect(page.getByTestId('explain-rules')).toContainText('fieldPath .replicas');
  expect(await rowsBelow(page, 'spec')).toEqual(explainFields('widgets.spec'));
  await expect(page.locator('li.explain__row[data-path="spec"]')).toContainText('1 CEL rule');
  await expect(page.locator('li.explain__row[data-path="spec.tags"]')).toContainText('list-type: set');
  await expect(page.locator('li.explain__row[data-path="spec.ports"]')).toContainText('list-map-keys: name');
  await page.locator('li.explain__row[data-path="spec.ports"]').getByRole('link').click();
  await expect(page.getByTestId('explain-rules')).toContainText('each item: self.port >= 1 && self.port <= 65535');
  await page.locator('li.explain__row[data-path="spec.color"]').getByRole('link').click();
  await expect(page.getByTestId('explain-rules')).toContainText("messageExpression: 'color must be a lower-case word, not ' + self");
  await page.locator('li.explain__row[data-path="spec.replicas"]').getByRole('link').click();
  await expect(details.locator('dt', { hasText: 'Default' }).locator('xpath=following-sibling::dd[1]')).toHaveText('1');
  await expect(details.locator('dt', { hasText: 'maximum' }).locator('xpath=following-sibling::dd[1]')).toHaveText('10');
  await page.locator('li.explain__row[data-path="spec.size"]').getByRole('link').click();
  await expect(details.locator('dt', { hasText: 'Enum' }).locator('xpath=following-sibling::dd[1]')).toHaveText('small, medium, large');
  await saveScreen(page, 'schema-widget-cel');
});

test('two versions of a CRD compared: fields added, removed and changed', async ({ page }) => {
  await page.goto('./?group=example.com&version=v1&resource=widgets&explain=');
  await page.getByTestId('explain-compare').selectOption('v1beta1');
  await expect(page).toHaveURL(/compare=v1beta1/);
  const comparison = page.getByTestId('explain-comparison');
  await expect(comparison.getByRole('status')).toHaveText('From v1beta1 to v1: 7 added, 1 removed, 6 changed.');
  const row = (path) => comparison.locator('tbody tr').filter({ has: page.getByRole('rowheader', { name: path, exact: true }) });
  await expect(row('spec.legacyLabel')).toContainText('removed in v1');
  await expect(row('spec.ports')).toContainText('added in v1');
  await expect(row('spec.tags')).toContainText('added in v1');
  await expect(row('spec.size')).toContainText('required: no → yes');
  await expect(row('spec.size')).toContainText('enum: (none) → small, medium, large');
  await expect(row('spec')).toContainText('x-kubernetes-preserve-unknown-fields: true → (none)');
  await expect(row('spec')).toContainText("validations: (none) → self.size != 'small' || self.replicas <= 3");
  await saveScreen(page, 'schema-widget-compare');
  // The link reproduces the comparison; the other version can be explained in its turn.
  await page.reload();
  await expect(comparison.getByRole('status')).toHaveText('From v1beta1 to v1: 7 added, 1 removed, 6 changed.');
  await page.getByTestId('explain-version').selectOption('v1beta1');
  await expect(page).toHaveURL(/version=v1beta1/);
  await expect(page.getByTestId('explain-title')).toHaveText('Schema of Widget · example.com/v1beta1');
  await page.getByRole('button', { name: 'Fields of spec', exact: true }).click();
  await expect(page.locator('li.explain__row[data-path="spec.legacyLabel"]')).toBeVisible();
});

test('the search finds fields by name first, then by words of their description', async ({ page }) => {
  await page.goto('./?group=apps&version=v1&resource=deployments&explain=');
  await page.getByTestId('explain-search').fill('minReadySeconds');
  const hits = page.getByTestId('explain-hit');
  await expect(hits.first()).toHaveText('spec.minReadySeconds');
  await expect(page.getByTestId('explain-search-status')).toHaveText(/^\d+ fields? match\.$/);
  await page.getByTestId('explain-search').fill('rollback');
  await expect(hits.first()).toBeVisible();
  expect((await hits.first().textContent()).toLowerCase()).not.toContain('rollback');
  await page.getByTestId('explain-search').fill('containers image');
  await page.getByTestId('explain-hit').filter({ hasText: /^spec\.template\.spec\.containers\.image$/ }).click();
  await expect(page).toHaveURL(/explain=spec.template.spec.containers.image(&|$)/);
  await expect(page.getByTestId('explain-field')).toHaveText('spec.template.spec.containers.image');
});

test('documents are held by the hash the index names and read again when it changes', async ({ page }) => {
  const sent = openapiRequests(page);
  const documents = () => sent.filter((u) => u.startsWith('/openapi/v3/apis/example.com/v1?hash='));
  await page.goto('./?group=example.com&version=v1&resource=widgets&namespace=demo');
  await page.getByTestId('explain-link').click();
  await expect(page.getByTestId('explain-source')).toContainText('/openapi/v3/apis/example.com/v1?hash=');
  expect(documents()).toHaveLength(1);
  // Again: the index is read again, names the same hash, and the document is not.
  await page.getByTestId('explain-back').click();
  await page.getByTestId('explain-link').click();
  await expect(page.getByTestId('explain-source')).toContainText('held');
  expect(sent.filter((u) => u === '/openapi/v3')).toHaveLength(2);
  expect(documents()).toHaveLength(1);
  // The CRD changes: a new hash, the document read again, the new field shown.
  const path = '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/note';
  kubectl('patch', 'crd', 'widgets.example.com', '--type=json', '-p', JSON.stringify([{ op: 'add', path, value: { type: 'string', description: 'Added while the explorer looked.' } }]));
  try {
    await page.getByTestId('explain-back').click();
    await page.getByTestId('explain-link').click();
    await expect(page.getByTestId('explain-source')).not.toContainText('held');
    await page.getByRole('button', { name: 'Fields of spec', exact: true }).click();
    await expect(page.locator('li.explain__row[data-path="spec.note"]')).toBeVisible();
    expect(documents()).toHaveLength(2);
    expect(documents()[1]).not.toEqual(documents()[0]);
  } finally {
    kubectl('patch', 'crd', 'widgets.example.com', '--type=json', '-p', JSON.stringify([{ op: 'remove', path }]));
  }
});

test('the kinds to explain, from the top bar, and a group version without a document', async ({ page }) => {
  await page.goto('./');
  await page.getByTestId('topbar-schemas').click();
  await expect(page).toHaveURL(/explain=/);
  await page.getByRole('searchbox', { name: 'Filter kinds' }).fill('cronj');
  await page.getByTestId('explain-kinds').getByRole('link', { name: 'CronJob · batch/v1' }).click();
  await expect(page.getByTestId('explain-title')).toHaveText('Schema of CronJob · batch/v1');
  expect(await rowsBelow(page, '')).toEqual(explainFields('cronjobs'));
  // The server has no document for the group version: the error says which and where.
  await page.route('**/openapi/v3', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{"paths":{}}' }));
  await page.goto('./?group=apps&version=v1&resource=deployments&explain=spec');
  await expect(page.getByTestId('explain-error')).toContainText('the /openapi/v3 index lists no apis/apps/v1');
});
