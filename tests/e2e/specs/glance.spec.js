// An object at a glance (issue 36 part 5): the facts the screen shows for a pod, a Deployment, a
// Service, a Node and a Job are the ones the real `kubectl describe` prints for the same kube-sim
// object, label for label (kubectl's labels are the English texts), value for value; and they
// follow the object live (a Job's pods by state, as it runs to completion).
const { test, expect } = require('@playwright/test');
const { kubectl, saveScreen, webPod } = require('./helpers');

/** `kubectl describe ARGS…` against this project's kube-sim. */
const describe = (...args) => kubectl('describe', ...args);

const squeeze = (line) => line.trim().replace(/:\s+/, ': ');

/**
 * kubectl's output as { facts: { LABEL: [values…] }, blocks: { LABEL: [lines…] },
 * containers: { NAME: { LABEL: [values…] } } }: top-level `Label:  value` lines, the indented
 * `Label:  value` lines of System Info, the lines under a label with no value, and the
 * containers' own lines (with the lines indented under each, such as a state's reason).
 */
function parse(text) {
  const out = { facts: {}, blocks: {}, containers: {} };
  const add = (map, label, value) => (map[label] = map[label] || []).push(value);
  let block = null;
  let container = null;
  let containerLabel = null;
  for (const line of text.split('\n')) {
    const top = /^([A-Za-z][A-Za-z -]*):\s*(.*)$/.exec(line);
    if (top) {
      block = top[2] === '' || top[2].startsWith('(') ? top[1] : null;
      if (top[2] !== '') add(out.facts, top[1], top[2].trimEnd());
      container = null;
      continue;
    }
    if (block === 'Containers') {
      const name = /^ {2}([a-z0-9-]+):$/.exec(line);
      if (name) {
        container = out.containers[name[1]] = {};
        continue;
      }
      const fact = /^ {4}([A-Za-z][A-Za-z ]*):\s*(.*)$/.exec(line);
      if (container && fact) {
        containerLabel = fact[1];
        add(container, fact[1], fact[2].trimEnd());
        continue;
      }
      if (container && /^ {6}\S/.test(line) && containerLabel) add(container, containerLabel, squeeze(line));
      continue;
    }
    if (block && /^ {2}\S/.test(line)) {
      add(out.blocks, block, squeeze(line));
      const sub = /^ {2}([A-Za-z][A-Za-z -]*):\s+(.*)$/.exec(line);
      if (block === 'System Info' && sub) add(out.facts, sub[1], sub[2].trimEnd());
    }
  }
  return out;
}

/** The page's facts as [[label, [lines…]]…], the top-level ones or one container's. */
async function pageFacts(scope) {
  return scope.locator(':scope > dl > [data-testid="glance-fact"]').evaluateAll((facts) =>
    facts.map((f) => [f.querySelector('dt').textContent, [...f.querySelectorAll('dd > div')].map((d) => d.textContent)]));
}

/** Every page fact against kubectl's: the same values, in order, for each label. */
function compare(facts, described, where) {
  const byLabel = {};
  for (const [label, lines] of facts) (byLabel[label] = byLabel[label] || []).push(lines);
  for (const [label, values] of Object.entries(byLabel)) {
    if (['Addresses', 'Capacity', 'Allocatable'].includes(label)) {
      expect(values[0], `${where} ${label}`).toEqual(described.blocks[label]);
    } else if (label === 'Start Time' || label === 'Completed At') {
      expect(Date.parse(values[0][0]), `${where} ${label}`).toBe(Date.parse(described.facts[label][0]));
    } else if (label === 'State' || label === 'Last State') {
      // The state's word and its reason and exit code; kubectl writes times as RFC 1123.
      const keep = (lines) => lines.filter((l) => !/^(Started|Finished):/.test(l));
      expect(keep(values[0]), `${where} ${label}`).toEqual(keep(described.facts[label]));
    } else {
      expect(values.map((v) => v[0]), `${where} ${label}`).toEqual(described.facts[label]);
    }
  }
}

async function check(page, url, args) {
  await page.goto(url);
  const panel = page.getByRole('region', { name: 'At a glance' });
  await expect(panel).toBeVisible();
  const described = parse(describe(...args));
  const facts = await pageFacts(panel);
  expect(facts.length).toBeGreaterThan(3);
  compare(facts, described, args.join(' '));
  return { panel, described };
}

test('a pod at a glance says what kubectl describe pod says, container by container', async ({ page, request }) => {
  const name = await webPod(request);
  const { panel, described } = await check(page, `./?group=&version=v1&resource=pods&namespace=demo&name=${name}`, ['pod', '-n', 'demo', name]);
  const containers = panel.getByTestId('glance-container');
  await expect(containers).toHaveCount(Object.keys(described.containers).length);
  for (const container of await containers.all()) {
    const containerName = await container.getAttribute('data-name');
    const facts = await pageFacts(container);
    expect(facts.map(([label]) => label)).toEqual(['Image', 'State', 'Ready', 'Restart Count']);
    compare(facts, { facts: described.containers[containerName], blocks: {} }, `container ${containerName}`);
  }
  await panel.scrollIntoViewIfNeeded();
  await saveScreen(page, 'glance-pod');
});

test('a Deployment, a Service and a Node at a glance say what kubectl describe says', async ({ page }) => {
  await check(page, './?group=apps&version=v1&resource=deployments&namespace=demo&name=web', ['deployment', '-n', 'demo', 'web']);
  await check(page, './?group=&version=v1&resource=services&namespace=demo&name=api', ['service', '-n', 'demo', 'api']);
  const { panel } = await check(page, './?group=&version=v1&resource=nodes&name=node-1', ['node', 'node-1']);
  await panel.scrollIntoViewIfNeeded();
  await saveScreen(page, 'glance-node');
});

test('a Job made by Run now shows its pods\' states as they change, and kubectl describe job agrees at the end', async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto('./?group=batch&version=v1&resource=cronjobs&namespace=shop&name=report');
  await page.getByRole('group', { name: 'Operations' }).getByRole('button', { name: 'Run now', exact: true }).click();
  const name = await page.getByTestId('operation-panel').getByRole('textbox', { name: 'Job name' }).inputValue();
  await page.getByTestId('operation-panel').getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByTestId('operation-sent')).toContainText('Sent: 201');
  await page.getByTestId('operation-job').click();
  await expect(page.getByTestId('object-title')).toHaveText(`Job ${name}`);
  const statuses = page.getByRole('region', { name: 'At a glance' }).getByTestId('glance-fact').filter({ hasText: 'Pods Statuses' }).locator('dd');
  const seen = [];
  await expect.poll(async () => {
    const text = await statuses.textContent();
    if (seen[seen.length - 1] !== text) seen.push(text);
    return text;
  }, { timeout: 45_000, intervals: [250] }).toBe('0 Active (0 Ready) / 1 Succeeded / 0 Failed');
  // The same screen, never read again by hand: the facts changed as the watch saw the Job run.
  expect(seen.length, `the states seen: ${seen.join(' | ')}`).toBeGreaterThan(1);
  const panel = page.getByRole('region', { name: 'At a glance' });
  compare(await pageFacts(panel), parse(describe('job', '-n', 'shop', name)), `job ${name}`);
  await panel.scrollIntoViewIfNeeded();
  await saveScreen(page, 'glance-job');
});
