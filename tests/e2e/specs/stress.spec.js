// Late answers: a person who clicks faster than the cluster answers. A few hundred quick steps
// switch views (collections, objects, a pod's log, search, access, the schema explorer),
// representations (Table, JSON, YAML, CBOR, metadata only, protobuf), namespaces, objects, pages
// and live/pages while requests are in flight: every API request is held back a random while
// before it leaves, kube-sim trickles bodies out slowly in some phases (/_sim/slow) and changes the
// pods of one namespace all along (/_sim/churn), so that answers, stream chunks, frames and timers
// keep arriving for views that are already gone. Any panic of
// the wasm ("panicked", a `RuntimeError: unreachable` trap) or any uncaught page error fails the
// test at the step it showed up in, with the steps before it.
//
// STRESS_SEED repeats a run (each run prints its seed); STRESS_STEPS changes its length.
const { test, expect } = require('@playwright/test');
const { simUrl } = require('./helpers');

const STEPS = Number(process.env.STRESS_STEPS || 300);
const SEED = Number(process.env.STRESS_SEED || Math.floor(Math.random() * 2 ** 31));
const NAMESPACES = [null, 'demo', 'shop', 'shop', 'default', 'kube-system'];
// kube-sim changes the pods of this namespace all along (an annotation), so that the live views
// keep receiving events, drawing frames and starting timers while the steps go on.
const CHURNED = 'shop';
const REPRESENTATIONS = ['table', 'json', 'yaml', 'cbor', 'metadata', 'protobuf'];
const REPRESENTATION_LABELS = ['Table', 'JSON', 'YAML', 'CBOR', 'Metadata only', 'Protobuf'];
const TYPES = [
  { group: '', version: 'v1', resource: 'pods' },
  { group: '', version: 'v1', resource: 'configmaps' },
  { group: '', version: 'v1', resource: 'events' },
  { group: '', version: 'v1', resource: 'namespaces', cluster: true },
  { group: 'apps', version: 'v1', resource: 'deployments' },
  { group: 'example.com', version: 'v1', resource: 'widgets' },
];

/** A small seeded generator (mulberry32), so that a failing run can be repeated. */
function generator(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n), pick: (items) => items[Math.floor(next() * items.length)] };
}

/** Collects what must never happen: a panic, a trap, an uncaught error. */
function watchForCrashes(page) {
  const crashes = [];
  page.on('console', (message) => {
    const text = message.text();
    if (/panicked|RuntimeError: unreachable/.test(text)) crashes.push(`console ${message.type()}: ${text}`);
  });
  page.on('pageerror', (error) => crashes.push(`pageerror: ${error.stack || error.message}`));
  return crashes;
}

/** The address of a random view. */
function randomAddress(random, pods) {
  const roll = random.next();
  if (roll < 0.04) return '?search=web';
  if (roll < 0.07) return '?access=1';
  if (roll < 0.09) return '?';
  const type = roll < 0.5 ? TYPES[0] : random.pick(TYPES);
  const query = new URLSearchParams({ group: type.group, version: type.version, resource: type.resource });
  const pod = type.resource === 'pods' && random.next() < 0.35 ? random.pick(pods) : null;
  const namespace = pod ? pod.namespace : type.cluster ? null : random.pick(NAMESPACES);
  if (namespace) query.set('namespace', namespace);
  if (pod) query.set('name', random.next() < 0.9 ? pod.name : 'no-such-pod');
  const representation = random.pick(REPRESENTATIONS);
  if (representation !== 'table') query.set('as', representation);
  if (!pod) {
    const watch = random.pick(['0', '1', '1', null]);
    if (watch) query.set('watch', watch);
    if (random.next() < 0.4) query.set('limit', random.pick(['2', '5']));
  }
  if (random.next() < 0.05) query.set('explain', 'metadata');
  return `?${query}`;
}

/** Moves the app to `address` as a link followed in place would (its popstate listener). */
async function jump(page, address) {
  const pushed = page.evaluate((search) => {
    history.pushState(null, '', search);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, address);
  await settled(page, pushed);
}

/** Clicks `locator` if it is there; a view that went away meanwhile is fine. */
async function tryClick(locator) {
  try {
    if ((await locator.count()) === 0) return false;
    await locator.first().click({ timeout: 300 });
    return true;
  } catch {
    return false;
  }
}

/** Waits for `navigation`; one that an entry of another document (after a reload) turned into a
 * page load of its own may fail in Playwright: the page then only has to be loaded again. */
async function settled(page, navigation) {
  try {
    await navigation;
  } catch {
    await page.waitForLoadState('domcontentloaded').catch(() => {});
  }
}

async function step(page, random, pods, history) {
  const roll = random.next();
  if (roll < 0.3) {
    const address = randomAddress(random, pods);
    await jump(page, address);
    history.at += 1;
    history.length = history.at;
    return `go ${address}`;
  }
  if (roll < 0.45) {
    const label = random.pick(REPRESENTATION_LABELS);
    const group = page.getByRole('group', { name: 'Representation' });
    return `representation ${label}: ${await tryClick(group.getByRole('button', { name: label, exact: true }))}`;
  }
  if (roll < 0.52) {
    const name = random.pick(['Next page', 'Previous page']);
    return `${name}: ${await tryClick(page.getByRole('button', { name }))}`;
  }
  if (roll < 0.6) {
    return `open a row: ${await tryClick(page.getByTestId('grid-row').nth(random.int(3)))}`;
  }
  if (roll < 0.66) {
    const mode = random.pick(['mode-live', 'mode-pages']);
    return `${mode}: ${await tryClick(page.getByTestId(mode))}`;
  }
  if (roll < 0.71) {
    const log = page.getByRole('region', { name: 'Subresources' }).getByRole('button', { name: 'log', exact: true });
    return `log: ${await tryClick(log)}`;
  }
  if (roll < 0.75) {
    const select = page.getByRole('combobox', { name: 'Namespace', exact: true });
    const namespace = random.pick(NAMESPACES.slice(1));
    try {
      if ((await select.count()) === 0) return `namespace ${namespace}: false`;
      await select.first().selectOption(namespace, { timeout: 300 });
      return `namespace ${namespace}: true`;
    } catch {
      return `namespace ${namespace}: false`;
    }
  }
  if (roll < 0.78) {
    return `load all: ${await tryClick(page.getByRole('button', { name: 'Load all pages' }))}`;
  }
  if (roll < 0.86) {
    // Never back past the first address (the blank page before it): only over the entries the
    // jumps pushed (a click that navigates pushes one more, so this stays on the safe side).
    const back = random.next() < 0.6 && history.at > 0;
    if (back) history.at -= 1;
    else if (history.at < history.length) history.at += 1;
    await settled(page, page.evaluate((b) => (b ? window.history.back() : window.history.forward()), back));
    return back ? 'back' : 'forward';
  }
  if (roll < 0.88) {
    await settled(page, page.reload({ waitUntil: 'commit' }));
    return 'reload';
  }
  const ms = random.int(250);
  await page.waitForTimeout(ms);
  return `wait ${ms} ms`;
}

async function churn(request, rate) {
  const response = await request.post(`${simUrl()}/_sim/churn?rate=${rate}&seconds=120&namespace=${CHURNED}`);
  expect(response.ok()).toBeTruthy();
}

async function setSlow(request, ms) {
  const response = await request.post(`${simUrl()}/_sim/slow?ms=${ms}`);
  expect(response.ok()).toBeTruthy();
}

test('switching views faster than the answers come never panics', async ({ page, request }) => {
  test.setTimeout(120_000);
  console.log(`stress: seed ${SEED}, ${STEPS} steps (STRESS_SEED=${SEED} repeats it)`);
  const random = generator(SEED);
  // The delays draw from their own sequence: the steps stay the same for a seed.
  const delays = generator(SEED + 1);
  const list = await (await request.get(`${simUrl()}/api/v1/pods`, { headers: { Accept: 'application/json' } })).json();
  const pods = list.items.slice(0, 12).map((p) => ({ namespace: p.metadata.namespace, name: p.metadata.name }));
  expect(pods.length).toBeGreaterThan(2);

  const crashes = watchForCrashes(page);
  // Each API request waits a random while before it leaves, so that answers overtake each other
  // and arrive after the view that asked has gone.
  await page.route(
    (url) => /^\/(api|apis)(\/|$)/.test(url.pathname),
    async (route) => {
      await new Promise((resolve) => setTimeout(resolve, delays.int(400)));
      await route.continue().catch(() => {});
    },
  );
  await page.goto(`./${randomAddress(random, pods)}`);
  const done = [];
  const history = { at: 0, length: 0 };
  await churn(request, 20);
  try {
    for (let n = 0; n < STEPS; n++) {
      // Phases of slow bodies: headers come at once, the body in pieces.
      if (n % 60 === 20) await setSlow(request, 30 + random.int(120));
      if (n % 60 === 40) await setSlow(request, 0);
      done.push(await step(page, random, pods, history));
      if (crashes.length) break;
    }
    // Answers still in flight land now.
    await setSlow(request, 0);
    await page.waitForTimeout(1_500);
  } finally {
    await setSlow(request, 0);
    // A churn of rate 0 ends the running one.
    await churn(request, 0);
  }
  const report = `seed ${SEED}, after ${done.length} steps; the last ones:\n  ${done.slice(-12).join('\n  ')}\n` +
    `crashes:\n  ${crashes.join('\n  ')}`;
  expect(crashes, report).toEqual([]);
  // The page still answers: the app is alive, not a trapped instance.
  await jump(page, '?group=&version=v1&resource=pods&namespace=demo&watch=0');
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
});
