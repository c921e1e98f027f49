// In-browser benchmark of the read path (figures, not a test): run by scripts/bench against the
// release build with `kube-sim --dataset scale:10000` behind it. Prints one "BENCH ..." line per
// figure:
//   - time from the click on "pods" to the first screenful of Table rows in the DOM (page size 500);
//   - time to load all 10,000 pods with "Load all pages", as Table, full objects (JSON) and CBOR;
//   - the memory the page holds after each load all: the bytes allocated in the wasm memory (the
//     app counts them: heapInUse()), the JS heap after a garbage collection (CDP), beside the
//     bytes of the list's pages as they came (decoded, not gzip); and the wasm memory's size,
//     which only grows (the high-water mark of the load);
//   - frame times while the 10,000-row table is scrolled (requestAnimationFrame deltas);
//   - with KUBE_SIM_URL set, the real peer on the same kube-sim in the same run: the preinstalled
//     `kubectl get pods -A -o json --chunk-size=500`, its JSON printed to /dev/null, and the
//     ratio of each load all to it.
//   - opening the app with an empty cache: to the first screen, and a link to pods to its rows;
// BENCH_PARTS (comma-separated: open, first, document, load, scroll, kubectl; all by default) picks the figures
// to take; BENCH_LABEL names the server in front of the explorer (trunk serve, kubectl proxy).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const { chromium } = require('@playwright/test');

const base = process.env.EXPLORER_URL;
if (!base) throw new Error('EXPLORER_URL is not set: run this through scripts/bench');
const args = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1] };
}

// One click on "pods" to the first screenful of rows: milliseconds, and the list request's own
// timing (Resource Timing: the rest is the page's).
async function firstRowsOnce(page, namespace) {
  await page.goto(namespace ? `${base}/?namespace=${namespace}` : `${base}/`);
  await page.getByLabel('Filter resource types').waitFor();
  return page.evaluate(() => new Promise((resolve) => {
    const link = [...document.querySelectorAll('.sidebar__link')].find((e) => e.textContent.trim().split(/\s+/)[0] === 'pods');
    if (!link) throw new Error('no "pods" entry in the sidebar');
    const start = performance.now();
    const observer = new MutationObserver(() => {
      if (document.querySelectorAll('[data-testid=grid-row]').length >= 20) {
        observer.disconnect();
        const ms = performance.now() - start;
        const entry = performance.getEntriesByType('resource').find((e) => e.startTime >= start && /\/pods\?/.test(e.name));
        resolve({
          ms,
          rows: document.querySelectorAll('[data-testid=grid-row]').length,
          sent: entry ? entry.startTime - start : NaN,
          ttfb: entry ? entry.responseStart - entry.startTime : NaN,
          request: entry ? entry.responseEnd - entry.startTime : NaN,
          kb: entry ? entry.encodedBodySize / 1024 : NaN,
        });
      }
    });
    observer.observe(document.body, { childList: true, subtree: true });
    link.click();
  }));
}

// The first click after kube-sim started (cold: its first list of 10,000 pods) and the median of
// five more.
// `live`: the default (list, then a Table watch); else read by pages (the setting turned off).
async function firstRows(page, namespace, live) {
  const where = namespace ? `namespace ${namespace}` : 'all namespaces (their namespaces read after, from a metadata-only list)';
  await page.goto(`${base}/`);
  await page.evaluate((on) => localStorage.setItem('kube-api-explorer.openLive', on ? '1' : '0'), live);
  const cold = await firstRowsOnce(page, namespace);
  const warm = [];
  for (let i = 0; i < 5; i++) warm.push(await firstRowsOnce(page, namespace));
  warm.sort((a, b) => a.ms - b.ms);
  const median = warm[2];
  // (A watch's Resource Timing entry comes only when it ends: none for a live view.)
  const split = (r) => (Number.isNaN(r.sent)
    ? 'the list is a stream (no timing entry while it is open)'
    : `request sent after ${r.sent.toFixed(0)} ms, first byte ${r.ttfb.toFixed(0)} ms later, ${r.kb.toFixed(0)} KB in ${r.request.toFixed(0)} ms`);
  const how = live ? 'live, the default: list then Table watch' : 'by pages: Table, page size 500, includeObject=None';
  console.log(`BENCH first rows (${live ? 'live' : 'pages'}), ${where}: median ${median.ms.toFixed(0)} ms of 5 (min ${warm[0].ms.toFixed(0)}, max ${warm[4].ms.toFixed(0)}), cold ${cold.ms.toFixed(0)} ms, from the click to the first ${median.rows} rows in the DOM (${how}); median run: ${split(median)}`);
}

const label = process.env.BENCH_LABEL || 'trunk serve';

// One page of 5,000 pods read as a JSON or CBOR document: from the click on "pods" (the view
// state asks for the representation and the page size) to the first screen of its text drawn.
async function firstDocumentOnce(page, as) {
  await page.goto(`${base}/?as=${as}&limit=5000&watch=0`);
  await page.getByLabel('Filter resource types').waitFor();
  return page.evaluate(() => new Promise((resolve) => {
    const link = [...document.querySelectorAll('.sidebar__link')].find((e) => e.textContent.trim().split(/\s+/)[0] === 'pods');
    if (!link) throw new Error('no "pods" entry in the sidebar');
    const start = performance.now();
    const observer = new MutationObserver(() => {
      const lines = document.querySelectorAll('.code [data-line]').length;
      if (lines >= 20 && document.querySelector('[data-testid=response-info]')) {
        observer.disconnect();
        const ms = performance.now() - start;
        const entry = performance.getEntriesByType('resource').find((e) => e.startTime >= start && /\/pods\?/.test(e.name));
        resolve({ ms, lines, request: entry ? entry.responseEnd - entry.startTime : NaN, kb: entry ? entry.encodedBodySize / 1024 : NaN });
      }
    });
    observer.observe(document.body, { childList: true, subtree: true });
    link.click();
  }));
}

async function firstDocument(page, as) {
  const runs = [];
  for (let i = 0; i < 5; i++) runs.push(await firstDocumentOnce(page, as));
  runs.sort((a, b) => a.ms - b.ms);
  const m = runs[2];
  console.log(`BENCH first screen of a 5,000-pod page as a ${as} document (behind ${label}): median ${m.ms.toFixed(0)} ms of 5 (min ${runs[0].ms.toFixed(0)}, max ${runs[4].ms.toFixed(0)}) from the click to ${m.lines} lines drawn; the request ${m.request.toFixed(0)} ms of it (${m.kb.toFixed(0)} KB)`);
}

// The real peer: kubectl's chunked list of every pod, printed as JSON to /dev/null. Milliseconds
// of wall time, the median of three (the first run also warms kube-sim).
function kubectlList() {
  const server = process.env.KUBE_SIM_URL;
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const out = fs.openSync('/dev/null', 'w');
    const started = process.hrtime.bigint();
    const result = spawnSync(process.env.KUBECTL || 'kubectl', ['--server', server, 'get', 'pods', '-A', '-o', 'json', '--chunk-size=500'],
      { stdio: ['ignore', out, 'pipe'], timeout: 600_000 });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    fs.closeSync(out);
    if (result.status !== 0) throw new Error(`kubectl failed: ${result.stderr}`);
    runs.push(ms);
  }
  runs.sort((a, b) => a - b);
  console.log(`BENCH kubectl get pods -A -o json --chunk-size=500 > /dev/null: median ${runs[1].toFixed(0)} ms of 3 (min ${runs[0].toFixed(0)}, max ${runs[2].toFixed(0)})`);
  return runs[1];
}

// "Load all pages" until every item is on screen: timed in the page, from the click to two
// animation frames after the progress says all are loaded (the joined document or the grid is
// built in the same reactive flush, so the frames come after it is drawn).
async function loadAll(page, as) {
  // Load all is a paged view's: watch=0 (a collection opens live by default).
  const query = as === 'table' ? '&watch=0' : `&as=${as}`;
  await page.goto(`${base}/?group=&version=v1&resource=pods${query}`);
  await page.getByRole('button', { name: 'Load all pages' }).waitFor();
  const { ms, text, lines } = await page.evaluate(() => new Promise((resolve) => {
    const button = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Load all pages');
    const progress = () => document.querySelector('[data-testid=load-all-progress]');
    const start = performance.now();
    const observer = new MutationObserver(() => {
      const p = progress();
      if (!p || !/^All [\d,]+ loaded/.test(p.textContent.trim())) return;
      observer.disconnect();
      requestAnimationFrame(() => requestAnimationFrame(() => {
        const numbers = [...document.querySelectorAll('.code__number, [data-line]')];
        resolve({ ms: performance.now() - start, text: p.textContent.trim(), lines: numbers.length });
      }));
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    button.click();
  }));
  console.log(`BENCH load all (${as}, behind ${label}): ${ms.toFixed(0)} ms from the click to the frame after all are shown; ${text}`);
  if (process.env.BENCH_MEMORY !== '0') await memory(page, as);
  return ms;
}

// What the page holds once the list is loaded: the JS heap after a collection, the wasm memory,
// and the size of the list's pages as they came (Resource Timing's decoded body sizes).
async function memory(page, as) {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = await cdp.send('Runtime.getHeapUsage');
    const { wasm, held, wire } = await page.evaluate(() => ({
      wasm: window.__benchWasm ? window.__benchWasm.memory.buffer.byteLength : NaN,
      held: window.wasmBindings && window.wasmBindings.heapInUse ? window.wasmBindings.heapInUse() : NaN,
      wire: performance.getEntriesByType('resource').filter((e) => /\/pods\?/.test(e.name)).reduce((a, e) => a + e.decodedBodySize, 0),
    }));
    const mb = (n) => (n / 1048576).toFixed(1);
    console.log(`BENCH memory after load all (${as}, behind ${label}): wasm heap in use ${mb(held)} MB, JS heap ${mb(usedSize)} MB (after a collection), pages as they came ${mb(wire)} MB: (wasm in use + JS heap) / pages ${((held + usedSize) / wire).toFixed(2)}x; wasm memory ${mb(wasm)} MB (its size only grows: the high-water mark)`);
  } finally {
    await cdp.detach();
  }
}

// Frame times while a loaded list scrolls: the 10,009-row Table's grid, or (`as` json) the
// joined JSON list's document, 873,000 lines of YAML of which only those in view are drawn.
async function scrolling(page, as = 'table') {
  await page.goto(`${base}/?group=&version=v1&resource=pods${as === 'table' ? '&watch=0' : `&as=${as}`}`);
  await page.getByRole('button', { name: 'Load all pages' }).click();
  await page.getByTestId('load-all-progress').filter({ hasText: /^All [\d,]+ loaded/ }).waitFor({ timeout: 600_000 });
  const selector = as === 'table' ? '[data-testid=grid-viewport]' : '[data-testid=document-text]';
  await page.locator(selector).waitFor();
  const deltas = await page.evaluate((selector) => new Promise((resolve) => {
    const viewport = document.querySelector(selector);
    const out = [];
    let last = performance.now();
    const end = last + 4000;
    function frame(now) {
      out.push(now - last);
      last = now;
      viewport.scrollTop += 240;
      if (viewport.scrollTop + viewport.clientHeight >= viewport.scrollHeight) viewport.scrollTop = 0;
      if (now < end) requestAnimationFrame(frame); else resolve(out.slice(1));
    }
    requestAnimationFrame(frame);
  }), selector);
  const s = stats(deltas);
  const what = as === 'table' ? 'over 10,000 rows' : 'over the joined list\'s YAML';
  console.log(`BENCH scroll frames (${as}): ${s.n} frames in 4 s (${(s.n / 4).toFixed(0)} fps), frame time p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, max ${s.max.toFixed(1)} ms (240 px per frame ${what})`);
}

// Opening the app with an empty cache (a new browser context each run): from the navigation to
// the first screen (the API groups listed), and a link to one namespace's pods to its first 20
// rows; the median of 5, with the bytes of wasm and JS fetched by then (gzip as served).
async function opening(browser) {
  const runs = async (url, ready) => {
    const results = [];
    for (let i = 0; i < 5; i++) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
      const page = await context.newPage();
      await page.goto(url, { waitUntil: 'commit' });
      const ms = await (await page.waitForFunction(ready, null, { polling: 'raf', timeout: 60_000 })).jsonValue();
      const code = await page.evaluate(() => performance.getEntriesByType('resource')
        .filter((e) => /\.(wasm|js)$/.test(new URL(e.name).pathname))
        .reduce((sum, e) => ({ files: sum.files + 1, kb: sum.kb + e.transferSize / 1024 }), { files: 0, kb: 0 }));
      results.push({ ms, ...code });
      await context.close();
    }
    results.sort((a, b) => a.ms - b.ms);
    return results;
  };
  const report = (what, r) => console.log(`BENCH open ${what}: median ${r[2].ms.toFixed(0)} ms of 5 (min ${r[0].ms.toFixed(0)}, max ${r[4].ms.toFixed(0)}) from the navigation, empty cache; ${r[2].files} wasm and JS files, ${r[2].kb.toFixed(0)} KB transferred by then`);
  report('the first screen (API groups listed)', await runs(`${base}/`,
    () => document.querySelector('[data-testid=discovery-summary]') && performance.now()));
  report('a link to pods in one namespace (20 rows)', await runs(`${base}/?group=&version=v1&resource=pods&namespace=load-0`,
    () => document.querySelectorAll('[data-testid=grid-row]').length >= 20 && performance.now()));
}

(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    // Trunk's loader announces the wasm instance: keep it, to read its memory.
    await page.addInitScript(() => {
      addEventListener('TrunkApplicationStarted', (e) => { window.__benchWasm = e.detail && e.detail.wasm; });
    });
    const parts = (process.env.BENCH_PARTS || 'open,first,document,load,scroll,kubectl').split(',');
    if (parts.includes('open')) await opening(browser);
    if (parts.includes('first')) {
      for (const live of [false, true]) {
        await firstRows(page, undefined, live);
        await firstRows(page, 'load-0', live);
      }
      await page.evaluate(() => localStorage.removeItem('kube-api-explorer.openLive'));
    }
    if (parts.includes('document')) for (const as of ['json', 'cbor']) await firstDocument(page, as);
    const loads = {};
    if (parts.includes('load')) for (const as of ['table', 'json', 'cbor']) loads[as] = await loadAll(page, as);
    if (parts.includes('load')) {
      for (const as of ['json', 'cbor']) console.log(`BENCH load all ${as} / table (behind ${label}): ${(loads[as] / loads.table).toFixed(2)}x (aim <= 1.5x)`);
    }
    if (parts.includes('kubectl') && process.env.KUBE_SIM_URL) {
      const kubectl = kubectlList();
      for (const [as, ms] of Object.entries(loads)) {
        console.log(`BENCH load all ${as} (behind ${label}) / kubectl: ${(ms / kubectl).toFixed(2)}x (aim <= 1x)`);
      }
    }
    if (parts.includes('scroll')) {
      await scrolling(page);
      await scrolling(page, 'json');
    }
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
