// CPU and memory in the pods and nodes lists (issue 38 item 4): the columns show what the
// server's metrics.k8s.io lists say, computed here from the very answers the page received, as
// `kubectl top` computes them (kubernetes/kubectl pkg/metricsutil/metrics_printer.go: CPU as
// MilliValue, rounded up; memory as Value()/2^20, rounded down; a share as the integer part of
// usage.MilliValue()/available.MilliValue()*100). And on a server without metrics-server, one
// calm line and no error.
const { test, expect } = require('@playwright/test');
const { saveScreen, noMetricsUrl } = require('./helpers');

const NS = 'demo';

/** A quantity as the server writes them, in units of 10^scale, rounded up (as ScaledValue). */
function scaled(text, scale) {
  const m = /^([0-9.]+)(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.exec(text);
  if (!m) throw new Error(`not a quantity the spec reads: ${text}`);
  const decimal = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
  const binary = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
  const suffix = m[2] || '';
  // Integers (what servers write) stay exact: scale by whole powers, rounding only a division.
  let value = Number(m[1]);
  if (suffix in binary) value *= 1024 ** binary[suffix];
  const shift = (suffix in binary ? 0 : decimal[suffix]) - scale;
  return shift >= 0 ? Math.round(value * 10 ** shift) : Math.ceil(Math.round(value) / 10 ** -shift);
}
const milliCpu = (q) => scaled(q, -3);
const bytes = (q) => scaled(q, 0);
const share = (usageMilli, availableMilli) => (availableMilli > 0 ? `${Math.trunc((usageMilli / availableMilli) * 100)}%` : '');

/** Keeps the last JSON answer of each list the page reads whose path matches a pattern. */
function lastAnswers(page, patterns) {
  const last = {};
  page.on('response', async (response) => {
    const path = new URL(response.url()).pathname;
    for (const [name, pattern] of Object.entries(patterns)) {
      if (pattern.test(path) && response.ok()) {
        try {
          last[name] = await response.json();
        } catch {
          // A body the page aborted: the next round brings another.
        }
      }
    }
  });
  return last;
}

/** The grid as { headers, rows: { NAME: { HEADER: text } } }. */
async function gridTexts(page) {
  return page.evaluate(() => {
    const headers = [...document.querySelectorAll('.grid__table thead th')].map((th) => th.textContent.trim());
    const rows = {};
    for (const tr of document.querySelectorAll('[data-testid="grid-row"]')) {
      const cells = [...tr.querySelectorAll('td')].map((td) => td.textContent.trim());
      const row = Object.fromEntries(headers.map((h, i) => [h, cells[i]]));
      rows[row.Name] = row;
    }
    return { headers, rows };
  });
}

test('the pods list shows each pod\'s CPU and memory and their shares of its requests and limits', async ({ page }) => {
  const last = lastAnswers(page, {
    metrics: /^\/apis\/metrics\.k8s\.io\/v1beta1\/namespaces\/demo\/pods$/,
    pods: /^\/api\/v1\/namespaces\/demo\/pods$/,
  });
  await page.goto(`./?group=&version=v1&resource=pods&namespace=${NS}&watch=1`);
  await expect(page.getByTestId('metrics-line')).toContainText('measured at', { timeout: 20_000 });
  await expect(page.getByRole('columnheader', { name: '%CPU/R', exact: true })).toBeVisible();
  const expected = () => {
    const requests = {};
    for (const pod of last.pods.items) {
      const sum = (kind, resource, read) => {
        let total = 0;
        for (const c of pod.spec.containers) {
          const q = c.resources && c.resources[kind] && c.resources[kind][resource];
          if (q === undefined) return undefined;
          total += read(q);
        }
        return total;
      };
      requests[pod.metadata.name] = {
        cpuR: sum('requests', 'cpu', milliCpu), cpuL: sum('limits', 'cpu', milliCpu),
        memR: sum('requests', 'memory', bytes), memL: sum('limits', 'memory', bytes),
      };
    }
    const rows = {};
    for (const item of last.metrics.items) {
      let cpuNano = 0;
      let mem = 0;
      for (const c of item.containers) {
        cpuNano += scaled(c.usage.cpu, -9);
        mem += bytes(c.usage.memory);
      }
      const cpu = Math.ceil(cpuNano / 1e6);
      const r = requests[item.metadata.name] || {};
      rows[item.metadata.name] = {
        CPU: `${cpu}m`, '%CPU/R': share(cpu, r.cpuR), '%CPU/L': share(cpu, r.cpuL),
        Memory: `${Math.floor(mem / 2 ** 20)}Mi`, '%MEM/R': share(mem * 1000, r.memR * 1000), '%MEM/L': share(mem * 1000, r.memL * 1000),
      };
    }
    return rows;
  };
  const shown = async () => {
    const { rows } = await gridTexts(page);
    const out = {};
    for (const name of Object.keys(rows)) {
      const { CPU, Memory } = rows[name];
      out[name] = { CPU, '%CPU/R': rows[name]['%CPU/R'], '%CPU/L': rows[name]['%CPU/L'], Memory, '%MEM/R': rows[name]['%MEM/R'], '%MEM/L': rows[name]['%MEM/L'] };
    }
    return out;
  };
  // The page reads the lists again every window: compare with the answers it last received.
  await expect.poll(async () => JSON.stringify(await shown()) === JSON.stringify(expected()) || [await shown(), expected()], { timeout: 20_000 }).toBe(true);
  const rows = await shown();
  expect(Object.keys(rows).length).toBeGreaterThan(0);
  expect(Object.values(rows).every((r) => /^\d+m$/.test(r.CPU) && /^\d+Mi$/.test(r.Memory) && /^\d+%$/.test(r['%CPU/R']))).toBe(true);
  await expect(page.getByTestId('metrics-line')).toContainText('read again every 15s');
  await saveScreen(page, 'metrics-pods');
});

test('the nodes list shows each node\'s CPU and memory as shares of its allocatable', async ({ page }) => {
  const last = lastAnswers(page, {
    metrics: /^\/apis\/metrics\.k8s\.io\/v1beta1\/nodes$/,
    nodes: /^\/api\/v1\/nodes$/,
  });
  await page.goto('./?group=&version=v1&resource=nodes&watch=0');
  await expect(page.getByTestId('metrics-line')).toContainText('measured at', { timeout: 20_000 });
  const expected = () => {
    const allocatable = Object.fromEntries(last.nodes.items.map((n) => [n.metadata.name, n.status.allocatable]));
    return Object.fromEntries(last.metrics.items.map((item) => {
      const cpu = milliCpu(item.usage.cpu);
      const mem = bytes(item.usage.memory);
      const a = allocatable[item.metadata.name];
      return [item.metadata.name, {
        CPU: `${cpu}m`, 'CPU%': share(cpu, milliCpu(a.cpu)),
        Memory: `${Math.floor(mem / 2 ** 20)}Mi`, 'Memory%': share(mem * 1000, bytes(a.memory) * 1000),
      }];
    }));
  };
  const shown = async () => {
    const { rows } = await gridTexts(page);
    return Object.fromEntries(Object.entries(rows).map(([name, r]) => [name, { CPU: r.CPU, 'CPU%': r['CPU%'], Memory: r.Memory, 'Memory%': r['Memory%'] }]));
  };
  await expect.poll(async () => JSON.stringify(await shown()) === JSON.stringify(expected()) || [await shown(), expected()], { timeout: 20_000 }).toBe(true);
  expect(Object.keys(await shown()).length).toBe(3);
  await saveScreen(page, 'metrics-nodes');
});

test('without metrics-server the list says so in one calm line, and nothing errors', async ({ page }) => {
  const metricsRequests = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/apis/metrics.k8s.io/')) metricsRequests.push(request.url());
  });
  await page.goto(`${noMetricsUrl()}?group=&version=v1&resource=pods&namespace=${NS}`);
  const line = page.getByTestId('metrics-line');
  await expect(line).toHaveText(/does not serve metrics\.k8s\.io .*no metrics-server runs in this cluster/);
  await expect(line).toHaveAttribute('data-calm', 'true');
  await expect(page.getByTestId('grid-row').first()).toBeVisible();
  await expect(page.getByRole('columnheader', { name: 'CPU', exact: true })).toHaveCount(0);
  await expect(page.getByRole('alert')).toHaveCount(0);
  expect(metricsRequests).toEqual([]);
  await saveScreen(page, 'metrics-not-served');
});
