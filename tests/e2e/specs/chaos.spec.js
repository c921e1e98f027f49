// A chaos run (#41): a live collection stays open while kube-sim, for two minutes, drops its
// watches, answers 500s and 429s with Retry-After, compacts its history (the next watch gets a
// 410), truncates a body mid-stream, slows down and speeds up again, and ConfigMaps are created,
// changed and deleted behind the page all along. Afterwards the grid equals the server's list
// (names and DATA counts), no page error and no Rust panic happened, no more watches were open at
// once than the page's budget, the page met the faults (500s and 429s among its answers, a full
// read after each compaction),
// and the full reads it sent (lists, and watches that start with the current state:
// sendInitialEvents=true) stay within the bound stated below. What each fault cost is printed.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

const WATCH_BUDGET = 3;
const ROUNDS = 2;
const PHASE_MS = 10_000;
const JSON_ACCEPT = { headers: { Accept: 'application/json' } };

// Each fault as kube-sim's controls make it (sim/src/http/faults). The ones that act on the
// next requests are followed by a dropped watch, so that the page's reconnecting watch meets them.
// 'unseen' is a change in another namespace, which the page's watch does not see, so that the
// compaction after it passes the resourceVersion the page resumes from. 'away' changes, creates
// and deletes ConfigMaps while the page's watch is held off (only watches fail, 503 with
// Retry-After 2, twice: the page holds one watch here, and more would keep it away into the
// next fault), and the compaction after it leaves the page a 410 on its return: what it missed,
// a deletion above all, only a full read can tell it.
const FAULTS = [
  ['watch dropped', ['/_sim/drop-watches']],
  ['500 twice', ['/_sim/fail?status=500&count=2', '/_sim/drop-watches']],
  ['429 twice, Retry-After 1', ['/_sim/fail?status=429&count=2&retryAfter=1', '/_sim/drop-watches']],
  ['history compacted (410)', ['unseen', '/_sim/compact', '/_sim/drop-watches']],
  ['changed while away, compacted', ['/_sim/fail?status=503&count=2&retryAfter=2&watches=true', '/_sim/drop-watches', 'away', '/_sim/compact']],
  ['body truncated', ['/_sim/truncate-next', '/_sim/drop-watches']],
  ['slow (250 ms a piece)', ['/_sim/slow?ms=250', '/_sim/drop-watches']],
  ['fast again', ['/_sim/slow?ms=0']],
];
// The bound on full reads: each of the two compactions costs one (the 410, then the current
// state read again); any other fault none, as the watch resumes from the last resourceVersion it
// saw; one more a round is allowed for a fault that lands on a full read instead (a failed or
// truncated one is sent again). Plus the first. Measured on 2026-11-29 with one compaction a
// round: 3 (the first, one a compaction).
const FULL_READS_ALLOWED = 1 + ROUNDS * 3;
const COMPACTIONS = ['history compacted (410)', 'changed while away, compacted'];

/** A small deterministic generator (mulberry32), so that a failing run can be replayed. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('a live collection stays equal to the server through two minutes of faults and changes', async ({ page, request }) => {
  test.setTimeout(6 * 60_000);
  const ns = `chaos-${Date.now().toString(36)}`;
  const sim = simUrl();
  const base = `${sim}/api/v1/namespaces/${ns}/configmaps`;

  // The test's own requests meet the injected faults too: each is sent again until the server
  // has done it (a create answered 409 or a delete answered 404 was done by an earlier attempt).
  async function until(send, done = []) {
    for (let attempt = 0; attempt < 40; attempt += 1) {
      try {
        const response = await send();
        if (response.ok() || done.includes(response.status())) return response;
      } catch (e) {
        // A body cut short by truncate-next: send again.
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error('the server did not do a change in 40 attempts');
  }
  let unseen = 0;
  const control = async (path) => {
    if (path === 'unseen') {
      unseen += 1;
      const name = `${ns}-unseen-${unseen}`;
      await until(() => request.post(`${sim}/api/v1/namespaces/demo/configmaps`, { data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } }), [409]);
      return;
    }
    if (path === 'away') {
      const [gone, changed] = [...live.keys()];
      await until(() => request.delete(`${base}/${gone}`), [404]);
      live.delete(gone);
      await until(() => request.put(`${base}/${changed}`, { data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: changed }, data: keys(7) } }));
      live.set(changed, 7);
      await create(2);
      return;
    }
    expect((await request.post(`${sim}${path}`)).status()).toBe(200);
  };

  await until(() => request.post(`${sim}/api/v1/namespaces`, { data: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } }), [409]);
  const keys = (n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));
  const live = new Map();
  let next = 0;
  const create = async (n) => {
    const name = `cm-${String(next).padStart(3, '0')}`;
    next += 1;
    await until(() => request.post(base, { data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: keys(n) } }), [409]);
    live.set(name, n);
  };
  for (let i = 0; i < 12; i += 1) await create(1 + (i % 4));

  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.text().includes('panicked')) errors.push(`console: ${m.text()}`);
  });
  let phase = 'first screen';
  const cost = new Map();
  const count = (kind) => {
    const row = cost.get(phase) || { full: 0, resumed: 0, answers: {} };
    if (kind === 'full' || kind === 'resumed') row[kind] += 1;
    else row.answers[kind] = (row.answers[kind] || 0) + 1;
    cost.set(phase, row);
  };
  const met = new Set();
  const open = new Set();
  let peak = 0;
  // The page's requests for this collection (the test's own requests are not the page's).
  const ours = (r) => r.url().includes(`/namespaces/${ns}/configmaps`);
  page.on('request', (r) => {
    if (!ours(r) || r.method() !== 'GET') return;
    const watch = /[?&]watch=(true|1)/.test(r.url());
    count(!watch || /[?&]sendInitialEvents=true/.test(r.url()) ? 'full' : 'resumed');
    if (watch) {
      open.add(r);
      peak = Math.max(peak, open.size);
    }
  });
  page.on('response', (r) => {
    if (!ours(r.request()) || r.status() < 300) return;
    count(String(r.status()));
    met.add(r.status());
  });
  page.on('requestfinished', (r) => open.delete(r));
  page.on('requestfailed', (r) => open.delete(r));

  await page.goto(`./?group=&version=v1&resource=configmaps&namespace=${ns}`);
  const rows = page.getByTestId('live-view').getByTestId('grid-row');
  await expect(rows).toHaveCount(12, { timeout: 30_000 });

  // Two rounds of every fault, PHASE_MS each, while one change a 400 ms or so goes on.
  const draw = random(41);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, controls] of FAULTS) {
      phase = name;
      for (const path of controls) await control(path);
      // The page's watch reconnects first and meets the fault; the changes follow.
      await page.waitForTimeout(2_000);
      const end = Date.now() + PHASE_MS - 2_000;
      while (Date.now() < end) {
        const names = [...live.keys()];
        const pick = names[Math.floor(draw() * names.length)];
        const roll = draw();
        if (roll < 0.35 || names.length < 4) {
          await create(1 + Math.floor(draw() * 5));
        } else if (roll < 0.7) {
          const n = 1 + Math.floor(draw() * 6);
          await until(() => request.put(`${base}/${pick}`, { data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: pick }, data: keys(n) } }));
          live.set(pick, n);
        } else {
          await until(() => request.delete(`${base}/${pick}`), [404]);
          live.delete(pick);
        }
        await page.waitForTimeout(300 + Math.floor(draw() * 200));
      }
    }
  }
  phase = 'settling';
  await control('/_sim/slow?ms=0');
  await control('/_sim/fail?status=500&count=0');

  // What each fault cost, printed before anything is required (a failing run says it too).
  const table = [...cost.entries()].map(([name, row]) => {
    const answers = Object.entries(row.answers).map(([status, n]) => `${status} ×${n}`).join(', ') || 'none';
    return `  ${name.padEnd(26)} full reads ${row.full}, resumed watches ${row.resumed}, failed answers: ${answers}`;
  });
  const full = [...cost.values()].reduce((sum, row) => sum + row.full, 0);
  console.log(`chaos: ${ROUNDS} rounds of ${FAULTS.length} faults, ${next} ConfigMaps made, ${live.size} at the end; ` +
    `full reads ${full} (allowed ${FULL_READS_ALLOWED}), watches open at once at most ${peak} (budget ${WATCH_BUDGET})\n${table.join('\n')}`);
  // The server's list, as a reader of it sees it, and what the page shows.
  const server = async () => {
    const list = await (await request.get(base, JSON_ACCEPT)).json();
    return list.items.map((i) => `${i.metadata.name} ${Object.keys(i.data || {}).length}`).sort();
  };
  const shown = async () => {
    const cells = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())));
    return cells.map(([name, data]) => `${name} ${data}`).sort();
  };
  const expected = await server();
  expect(expected).toEqual([...live.entries()].map(([name, n]) => `${name} ${n}`).sort());
  await expect.poll(shown, { timeout: 30_000 }).toEqual(expected);
  await saveScreen(page, 'chaos-after');

  expect(errors).toEqual([]);
  expect(peak).toBeLessThanOrEqual(WATCH_BUDGET);
  // Counted again: the settling poll's reads count too.
  expect([...cost.values()].reduce((sum, row) => sum + row.full, 0)).toBeLessThanOrEqual(FULL_READS_ALLOWED);
  // The faults reached the page, not only the test's own requests: it was answered 500 and 429,
  // and after each compaction it read the current state again (the 410 comes as a watch event).
  for (const status of [429, 500, 503]) expect(met, `the page met a ${status}`).toContain(status);
  for (const fault of COMPACTIONS) expect(cost.get(fault).full, `full reads after '${fault}'`).toBeGreaterThanOrEqual(ROUNDS);
  const state = await (await request.get(`${sim}/_sim/state`)).json();
  expect(state.openStreams).toBeLessThanOrEqual(WATCH_BUDGET);
  await until(() => request.delete(`${sim}/api/v1/namespaces/${ns}`), [404]);
  for (let i = 1; i <= unseen; i += 1) await until(() => request.delete(`${sim}/api/v1/namespaces/demo/configmaps/${ns}-unseen-${i}`), [404]);
});
