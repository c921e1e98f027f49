// CPU and memory over time on a pod's and a node's screen (issue 38 item 4): the page reads the
// object's metrics every window (metrics-server keeps only its last scrape) and keeps them. The
// table beside the charts must hold exactly the scrapes the page received, newest first, each
// computed here from the very answers as `kubectl top` computes them (CPU in millicores rounded
// up, memory in MiB rounded down: kubernetes/kubectl pkg/metricsutil/metrics_printer.go), and the
// chart's line must have one point per scrape. Then axe on the panel, and no metrics-server: one
// calm line.
const { test, expect } = require('@playwright/test');
const AxeBuilder = require('@axe-core/playwright').default;
const { saveScreen, webPod, noMetricsUrl } = require('./helpers');

/** Nanocores of a CPU quantity as metrics-server writes them (`37564780n`, `250m`, `1`). */
function nanocores(q) {
  const m = /^(\d+)(n|u|m)?$/.exec(q);
  if (!m) throw new Error(`not a CPU quantity the spec reads: ${q}`);
  return Number(m[1]) * { n: 1, u: 1e3, m: 1e6, undefined: 1e9 }[m[2]];
}
/** Bytes of a memory quantity (`103084Ki`, `2Gi`, `123456`). */
function bytesOf(q) {
  const m = /^(\d+)(Ki|Mi|Gi)?$/.exec(q);
  if (!m) throw new Error(`not a memory quantity the spec reads: ${q}`);
  return Number(m[1]) * { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, undefined: 1 }[m[2]];
}

/** Every distinct scrape the page received for `path`, in the order received, as table rows. */
function scrapes(page, path) {
  const rows = [];
  page.on('response', async (response) => {
    if (new URL(response.url()).pathname !== path || !response.ok()) return;
    let doc;
    try {
      doc = await response.json();
    } catch {
      return;
    }
    const usages = doc.containers ? doc.containers.map((c) => c.usage) : [doc.usage];
    const cpu = Math.ceil(usages.reduce((sum, u) => sum + nanocores(u.cpu), 0) / 1e6);
    const memory = Math.floor(usages.reduce((sum, u) => sum + bytesOf(u.memory), 0) / 2 ** 20);
    const row = [doc.timestamp, `${cpu}m`, `${memory}Mi`];
    if (!rows.length || rows[rows.length - 1][0] < doc.timestamp) rows.push(row);
  });
  return rows;
}

async function tableRows(page) {
  return page.getByTestId('metrics-samples').locator('tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())));
}

/** The number of points on a chart's line (`M x y L x y …`). */
async function points(page, figure) {
  const d = await page.getByTestId(`metrics-chart-${figure}`).getByTestId('metrics-chart-path').getAttribute('d');
  return d ? d.split(/[ML]/).filter((p) => p.trim()).length : 0;
}

test('a pod\'s screen keeps its CPU and memory since it opened, as charts and as a table', async ({ page, request }) => {
  test.setTimeout(90_000);
  const name = await webPod(request);
  const received = scrapes(page, `/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods/${name}`);
  await page.goto(`./?group=&version=v1&resource=pods&namespace=demo&name=${name}`);
  const panel = page.getByRole('region', { name: 'CPU and memory since this screen opened' });
  await expect(panel.getByTestId('metrics-chart-line')).toContainText('every 15s', { timeout: 20_000 });
  // Two windows: a second scrape arrives (kube-sim's window is 15 s).
  await expect.poll(async () => (await tableRows(page)).length, { timeout: 45_000, intervals: [1000] }).toBeGreaterThanOrEqual(2);
  const rows = await tableRows(page);
  expect(rows).toEqual([...received].reverse());
  expect(rows.every(([at, cpu, memory]) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(at) && /^\d+m$/.test(cpu) && /^\d+Mi$/.test(memory))).toBe(true);
  expect(await points(page, 'cpu')).toBe(rows.length);
  expect(await points(page, 'memory')).toBe(rows.length);
  // The chart in words, for a screen reader: its span and its last value.
  const newest = rows[0];
  await expect(page.getByTestId('metrics-chart-cpu-described')).toContainText(`last ${newest[1]}`);
  await expect(page.getByTestId('metrics-chart-memory-described')).toContainText(`to ${newest[0].slice(11, 19)} (UTC)`);
  await panel.getByText('The samples as a table').click();
  await expect(page.getByTestId('metrics-samples')).toBeVisible();
  const results = await new AxeBuilder({ page }).include('[data-testid="metrics-charts"]').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await panel.scrollIntoViewIfNeeded();
  await saveScreen(page, 'metrics-chart-pod');
});

test('a node\'s screen charts the node\'s CPU and memory', async ({ page }) => {
  const received = scrapes(page, '/apis/metrics.k8s.io/v1beta1/nodes/node-1');
  await page.goto('./?group=&version=v1&resource=nodes&name=node-1');
  await expect(page.getByTestId('metrics-chart-line')).toContainText('every 15s', { timeout: 20_000 });
  await expect.poll(async () => (await tableRows(page)).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
  expect(await tableRows(page)).toEqual([...received].reverse());
  expect(await points(page, 'cpu')).toBe(received.length);
  await page.getByTestId('metrics-charts').scrollIntoViewIfNeeded();
  await saveScreen(page, 'metrics-chart-node');
});

test('without metrics-server a pod\'s screen says so calmly and asks nothing', async ({ page }) => {
  const asked = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.startsWith('/apis/metrics.k8s.io/')) asked.push(r.url());
  });
  await page.goto(`${noMetricsUrl()}?group=&version=v1&resource=nodes&name=node-1`);
  const line = page.getByTestId('metrics-chart-line');
  await expect(line).toContainText('no metrics-server runs in this cluster');
  await expect(line).toHaveAttribute('data-calm', 'true');
  await expect(page.getByRole('alert')).toHaveCount(0);
  expect(asked).toEqual([]);
});

test('a namespace\'s screen sums its pods\' CPU and memory against their requests and limits, and names the heaviest', async ({ page }) => {
  const last = {};
  page.on('response', async (response) => {
    const path = new URL(response.url()).pathname;
    const name = { '/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods': 'metrics', '/api/v1/namespaces/demo/pods': 'pods' }[path];
    if (!name || !response.ok()) return;
    try {
      // The namespace's picture lists the same pods as a Table or as metadata only: only the
      // metrics round's whole lists are the answers the totals come from.
      const body = await response.json();
      if (body.kind === { metrics: 'PodMetricsList', pods: 'PodList' }[name]) last[name] = body;
    } catch {
      // An answer the page aborted: the next round brings another.
    }
  });
  await page.goto('./?group=&version=v1&resource=namespaces&name=demo');
  const panel = page.getByRole('region', { name: 'CPU and memory of the pods in this namespace' });
  await expect(panel.getByTestId('namespace-metrics-totals')).toBeVisible({ timeout: 20_000 });
  // Computed here from the answers, as the model's invariants say: a bound sets the usage of the
  // pods that set it (every container) against their sum.
  const expected = () => {
    // The panel can draw before the test has read both answers' bodies: poll again until it has.
    if (!last.metrics || !last.pods) return 'the answers not read yet';
    const used = {};
    for (const item of last.metrics.items) {
      used[item.metadata.name] = {
        cpu: item.containers.reduce((s, c) => s + nanocores(c.usage.cpu), 0),
        memory: item.containers.reduce((s, c) => s + bytesOf(c.usage.memory), 0),
      };
    }
    const milli = (n) => `${Math.ceil(n / 1e6)}m`;
    const mib = (b) => `${Math.floor(b / 2 ** 20)}Mi`;
    const bound = (kind, resource, read, show) => {
      let total = 0;
      let pods = 0;
      let usedByThem = 0;
      for (const pod of last.pods.items) {
        const u = used[pod.metadata.name];
        if (!u) continue;
        const values = pod.spec.containers.map((c) => c.resources && c.resources[kind] && c.resources[kind][resource]);
        if (values.some((v) => v === undefined)) continue;
        total += values.reduce((s, v) => s + read(v), 0);
        pods += 1;
        usedByThem += u[resource];
      }
      return pods ? `${show(total)}, ${Math.trunc((usedByThem / total) * 100)}% in use (pods that set it: ${pods})` : 'set by no pod';
    };
    const cpuQ = (q) => (/^\d+m$/.test(q) ? Number(q.slice(0, -1)) * 1e6 : nanocores(q));
    const sum = (key) => Object.values(used).reduce((s, u) => s + u[key], 0);
    return [
      [`In use (pods measured: ${Object.keys(used).length} of ${last.pods.items.length})`, milli(sum('cpu')), mib(sum('memory'))],
      ['Requested', bound('requests', 'cpu', cpuQ, milli), bound('requests', 'memory', bytesOf, mib)],
      ['Limits', bound('limits', 'cpu', cpuQ, milli), bound('limits', 'memory', bytesOf, mib)],
    ];
  };
  const shown = () => panel.getByTestId('namespace-metrics-totals').locator('tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.children].map((c) => c.textContent.trim())));
  await expect.poll(async () => JSON.stringify(await shown()) === JSON.stringify(expected()) || [await shown(), expected()], { timeout: 20_000 }).toBe(true);
  const heaviest = Object.entries(Object.fromEntries(last.metrics.items.map((i) => [i.metadata.name, i.containers.reduce((s, c) => s + nanocores(c.usage.cpu), 0)])))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5).map(([name]) => name);
  const top = panel.getByTestId('namespace-top-cpu').getByRole('link');
  await expect.poll(async () => (await top.allTextContents()).join(',')).toBe(heaviest.join(','));
  await expect(page.getByTestId('metrics-chart-cpu').getByTestId('metrics-chart-path')).toHaveAttribute('d', /^M/);
  const results = await new AxeBuilder({ page }).include('[data-testid="namespace-metrics"]').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await panel.scrollIntoViewIfNeeded();
  await saveScreen(page, 'metrics-namespace');
  await top.first().click();
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${heaviest[0]}`);
});
