// In-browser benchmark of an object in its context at 10,000 pods (figures, not a test; issue #36
// item 2, "usable at 10,000 pods"): run by scripts/bench against the release build, kube-sim
// `--dataset demo` behind it, where this script creates a Deployment of 10,000 replicas in a
// namespace of its own. Prints one "BENCH ..." line per figure:
//   - the Deployment's screen: from the app's own navigation to its Relations tree drawn (its
//     ReplicaSet and the first pods, with "and N more"), the lists sent and their bytes (Resource
//     Timing, decoded), and the same for one read again (every 10 s);
//   - the namespace's picture: the same, to its Deployment drawn down to its pods;
//   - one of the pods' screens: to its owner and what it uses;
//   - frames while a screen reads its lists again (requestAnimationFrame deltas over 12 s), and
//     the wasm heap in use (the app's own count).
const { chromium } = require('@playwright/test');

const base = process.env.EXPLORER_URL;
const sim = process.env.KUBE_SIM_URL;
if (!base || !sim) throw new Error('EXPLORER_URL and KUBE_SIM_URL are not set: run this through scripts/bench');
const args = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];
const REPLICAS = Number(process.env.BENCH_REPLICAS || 10000);
const NS = 'wide';

async function api(method, path, body) {
  const response = await fetch(`${sim}${path}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

// The Deployment's ready replicas, as its controller counts them (a list with a label selector
// carries no remainingItemCount, on kube-sim as on a real API server).
async function podCount() {
  const deployment = await api('GET', `/apis/apps/v1/namespaces/${NS}/deployments/${NS}`);
  return (deployment.status && deployment.status.readyReplicas) || 0;
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1] };
}

const mb = (n) => (n / 1048576).toFixed(1);

// Opens `query` by the app's own navigation and waits for `ready` (a function of the document run
// in the page): milliseconds, the requests sent to `namespaces/wide` meanwhile and their bytes.
async function open(page, query, ready) {
  await page.goto(`${base}/`);
  await page.getByLabel('Filter resource types').waitFor();
  await page.evaluate(() => performance.clearResourceTimings());
  const start = await page.evaluate((q) => {
    history.pushState(null, '', `?${q}`);
    dispatchEvent(new PopStateEvent('popstate'));
    return performance.now();
  }, query);
  await page.waitForFunction(ready, null, { timeout: 5 * 60_000, polling: 20 });
  const end = await page.evaluate(() => performance.now());
  const sent = await page.evaluate(([from, ns]) => performance.getEntriesByType('resource')
    .filter((e) => e.startTime >= from && e.name.includes(`/namespaces/${ns}/`) && !e.name.includes('watch=')),
  [start, NS]);
  return {
    ms: end - start,
    lists: sent.length,
    bytes: sent.reduce((a, e) => a + e.decodedBodySize, 0),
    wire: Math.max(0, ...sent.map((e) => e.responseEnd - start)),
  };
}

// Frames over `ms` milliseconds while the screen stays open (it reads its lists again every 10 s),
// the lists read meanwhile and the heap in use after.
async function stay(page, ms) {
  return page.evaluate((span) => new Promise((resolve) => {
    performance.clearResourceTimings();
    const frames = [];
    let last = performance.now();
    const end = last + span;
    const step = (now) => {
      frames.push(now - last);
      last = now;
      if (now < end) requestAnimationFrame(step);
      else {
        const lists = performance.getEntriesByType('resource').filter((e) => /labelSelector=/.test(e.name));
        resolve({
          frames,
          lists: lists.length,
          bytes: lists.reduce((a, e) => a + e.decodedBodySize, 0),
          request: Math.max(0, ...lists.map((e) => e.responseEnd - e.startTime)),
          held: window.wasmBindings && window.wasmBindings.heapInUse ? window.wasmBindings.heapInUse() : NaN,
        });
      }
    };
    requestAnimationFrame(step);
  }), ms);
}

async function measure(page, what, query, ready) {
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await open(page, query, ready));
  runs.sort((a, b) => a.ms - b.ms);
  const r = runs[1];
  const after = await stay(page, 12_000);
  const f = stats(after.frames);
  console.log(`BENCH context at ${REPLICAS} pods, ${what}: median ${r.ms.toFixed(0)} ms of 3 (min ${runs[0].ms.toFixed(0)}, max ${runs[2].ms.toFixed(0)}) to drawn; ${r.lists} requests, ${mb(r.bytes)} MB of bodies, the last answer's end at ${r.wire.toFixed(0)} ms; then 12 s open: ${after.lists} lists read again, ${mb(after.bytes)} MB, the longest ${after.request.toFixed(0)} ms; frames p50 ${f.p50.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms, max ${f.max.toFixed(1)} ms; wasm heap in use ${mb(after.held)} MB`);
}

(async () => {
  await api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  const started = Date.now();
  await api('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: NS, labels: { app: NS } },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { app: NS } },
      template: {
        metadata: { labels: { app: NS } },
        spec: { containers: [{ name: 'app', image: 'registry.example/wide:1.0', ports: [{ containerPort: 8080 }] }] },
      },
    },
  });
  // kube-sim may hold a request for minutes while its controllers make the pods: a poll that
  // times out is asked again.
  const ready = () => podCount().catch(() => 0);
  while ((await ready()) < REPLICAS) {
    if (Date.now() - started > 60 * 60_000) throw new Error(`kube-sim made ${await ready()} of ${REPLICAS} pods in 60 minutes`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  console.log(`BENCH context: kube-sim made the Deployment's ${REPLICAS} pods in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const pod = (await api('GET', `/api/v1/namespaces/${NS}/pods?labelSelector=app%3D${NS}&limit=1`)).items[0].metadata.name;

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await measure(page, 'the Deployment\'s Relations (ReplicaSet, pods)', `group=apps&version=v1&resource=deployments&namespace=${NS}&name=${NS}`,
      () => !!document.querySelector('[data-testid=relations-dependents] [data-testid=relations-more]'));
    await measure(page, 'the namespace\'s picture (Deployment, ReplicaSet, pods)', `group=&version=v1&resource=namespaces&name=${NS}`,
      () => !!document.querySelector('[data-testid=picture-workloads] [data-testid=relations-more]'));
    await measure(page, 'one pod\'s Relations (its owner, what it uses)', `group=&version=v1&resource=pods&namespace=${NS}&name=${pod}`,
      () => [...document.querySelectorAll('[data-testid=relations-uses] .relations__status')].some((e) => e.textContent.trim() !== ''));
  } finally {
    await browser.close();
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
