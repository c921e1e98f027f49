// A server that is replaced (issue 41, item 2): a kube-sim of the spec's own, serving the
// /explorer/ bundle (--www) and the API on one origin, is stopped while a live view of its
// configmaps and the object screen of one of them are open, and another kube-sim is started on the
// same address with another state: its resourceVersions went back (the first one had 20 more
// writes), its objects have new uids, the first one's `old-*` configmaps are not there, and it has
// a `new-0`. The live view's watch, resumed at the first server's version, gets the apiserver's 504
// "Too large resource version"; the page must say the server does not know that version, relist,
// and end equal to the new server's list without a reload; the object screen of `old-0` must say
// the object is gone; and the object history of `shared`, a name both servers have (changed on
// each), must hold the new server's versions only: no diff between two servers' objects.
const { spawn } = require('node:child_process');
const net = require('node:net');
const { test, expect } = require('@playwright/test');
const { saveScreen } = require('./helpers');

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the end-to-end tests through scripts/test or scripts/dev-e2e`);
  return value;
}

/** A port nothing listens on now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts a kube-sim on `port` with the bundle, and waits for it to answer. */
async function startSim(port, label) {
  const child = spawn(
    required('KUBE_SIM_BIN'),
    ['--listen', `127.0.0.1:${port}`, '--www', required('EXPLORER_WWW_DIST'), '--www-prefix', '/explorer/'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (b) => (stderr += b));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  for (let i = 0; i < 100; i += 1) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/version`)).ok) return { child, exited };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`kube-sim (${label}) did not answer on ${port}: ${stderr.slice(-500)}`);
}

async function stopSim(sim) {
  sim.child.kill('SIGKILL');
  await sim.exited;
}

const CONFIGMAPS = '/api/v1/namespaces/demo/configmaps';

async function create(port, name) {
  const answer = await fetch(`http://127.0.0.1:${port}${CONFIGMAPS}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } }),
  });
  expect(answer.status).toBe(201);
  return (await answer.json()).metadata.resourceVersion;
}

/** Changes configmap `name`'s data; the new resourceVersion. */
async function change(port, name, value) {
  const answer = await fetch(`http://127.0.0.1:${port}${CONFIGMAPS}/${name}`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/merge-patch+json' },
    body: JSON.stringify({ data: { k: value } }),
  });
  expect(answer.status).toBe(200);
  return (await answer.json()).metadata.resourceVersion;
}

/** The server's configmaps of `demo`: names, uids, and the list's resourceVersion. */
async function serverList(port) {
  const list = await (await fetch(`http://127.0.0.1:${port}${CONFIGMAPS}`, { headers: { Accept: 'application/json' } })).json();
  return {
    names: list.items.map((i) => i.metadata.name).sort(),
    uids: list.items.map((i) => i.metadata.uid),
    rv: Number(list.metadata.resourceVersion),
  };
}

test('a kube-sim replaced under a live view is followed: relisted, said, equal to the new server', async ({ browser }) => {
  test.setTimeout(120000);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  let sim = await startSim(port, 'first');
  try {
    for (let i = 0; i < 20; i += 1) await create(port, `old-${i}`);
    await create(port, 'shared');
    const first = await serverList(port);
    const context = await browser.newContext();
    const problems = [];
    const watchPage = async (url) => {
      const page = await context.newPage();
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('console', (m) => {
        if (/panicked/.test(m.text())) problems.push(`console: ${m.text().slice(0, 300)}`);
      });
      await page.goto(url);
      return page;
    };
    const live = await watchPage(`${origin}/explorer/?group=&version=v1&resource=configmaps&namespace=demo&watch=1`);
    const rows = live.getByTestId('grid-row');
    await expect(rows.filter({ hasText: 'old-19' })).toBeVisible();
    await expect(rows).toHaveCount(first.names.length);
    const object = await watchPage(`${origin}/explorer/?group=&version=v1&resource=configmaps&namespace=demo&name=old-0`);
    await expect(object.getByTestId('object-title')).toHaveText('ConfigMap old-0');

    // `shared` changed twice on the first server, seen by the live view's history.
    await change(port, 'shared', 'first-1');
    await change(port, 'shared', 'first-2');
    const historyOf = live.getByRole('combobox', { name: 'History of object' });
    await expect(historyOf.locator('option', { hasText: 'ConfigMap demo/shared' })).toHaveCount(1);

    // Replaced: the same address, another state.
    await stopSim(sim);
    sim = await startSim(port, 'second');
    await create(port, 'new-0');
    const sharedCreated = await create(port, 'shared');
    const second = await serverList(port);
    expect(second.rv).toBeLessThan(first.rv);
    expect(second.uids.filter((u) => first.uids.includes(u))).toEqual([]);

    // The live view says why it relists, and ends equal to the new server, without a reload.
    await expect(live.getByTestId('live-problem')).toContainText('the server does not know the resource version asked for', { timeout: 30000 });
    await expect(rows.filter({ hasText: 'new-0' })).toBeVisible({ timeout: 30000 });
    await expect(rows.filter({ hasText: /old-\d/ })).toHaveCount(0);
    await expect(rows).toHaveCount(second.names.length);
    const shown = (await rows.allInnerTexts()).map((t) => t.trim().split(/\s+/)[0]).sort();
    expect(shown).toEqual(second.names);
    await saveScreen(live, 'replaced-live');
    // A change on the new server reaches the page: the watch follows it.
    await create(port, 'new-1');
    await expect(rows.filter({ hasText: 'new-1' })).toBeVisible({ timeout: 15000 });
    // `shared` on the new server is another object: its history is the new server's two versions
    // exactly, its creation and its change (none of the first server's). The resourceVersions are
    // compared as a whole list: the new server's counter may reach a number the first one used.
    const secondVersion = await change(port, 'shared', 'second-1');
    await historyOf.selectOption('ConfigMap demo/shared');
    const versions = live.getByRole('combobox', { name: 'From' }).locator('option');
    await expect(versions.last()).toHaveText(`MODIFIED rv ${secondVersion}`);
    expect(await versions.allTextContents()).toEqual([`ADDED rv ${sharedCreated}`, `MODIFIED rv ${secondVersion}`]);
    await expect(live.locator('.history')).toContainText('second-1');
    await expect(live.locator('.history')).not.toContainText('first-');
    await saveScreen(live, 'replaced-history');

    // The object screen of an object the new server does not have says so.
    await expect(object.getByTestId('object-freshness')).toContainText('deleted on the server', { timeout: 30000 });
    await saveScreen(object, 'replaced-object');
    expect(problems).toEqual([]);
    await context.close();
  } finally {
    await stopSim(sim);
  }
});
