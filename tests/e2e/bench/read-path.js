// In-browser benchmark of the read path (figures, not a test): run by scripts/bench against the
// release build with `kube-sim --dataset scale:10000` behind it. Prints one "BENCH ..." line per
// figure:
//   - time from the click on "pods" to the first screenful of Table rows in the DOM (page size 500);
//   - time to load all 10,000 pods with "Load all pages", as Table, full objects (JSON) and CBOR;
//   - frame times while the 10,000-row table is scrolled (requestAnimationFrame deltas).
// BENCH_PARTS (comma-separated: first, load, scroll; all by default) picks the figures to take.
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
async function firstRows(page, namespace) {
  const where = namespace ? `namespace ${namespace}` : 'all namespaces (their namespaces read after, from a metadata-only list)';
  const cold = await firstRowsOnce(page, namespace);
  const warm = [];
  for (let i = 0; i < 5; i++) warm.push(await firstRowsOnce(page, namespace));
  warm.sort((a, b) => a.ms - b.ms);
  const median = warm[2];
  const split = (r) => `request sent after ${r.sent.toFixed(0)} ms, first byte ${r.ttfb.toFixed(0)} ms later, ${r.kb.toFixed(0)} KB in ${r.request.toFixed(0)} ms`;
  console.log(`BENCH first rows, ${where}: median ${median.ms.toFixed(0)} ms of 5 (min ${warm[0].ms.toFixed(0)}, max ${warm[4].ms.toFixed(0)}), cold ${cold.ms.toFixed(0)} ms, from the click to the first ${median.rows} rows in the DOM (Table, page size 500, includeObject=None); median run: ${split(median)}`);
}

async function loadAll(page, as) {
  const query = as === 'table' ? '' : `&as=${as}`;
  await page.goto(`${base}/?group=&version=v1&resource=pods${query}`);
  const button = page.getByRole('button', { name: 'Load all pages' });
  await button.waitFor();
  const started = Date.now();
  await button.click();
  const done = page.getByTestId('load-all-progress').filter({ hasText: /^All \d+ loaded/ });
  await done.waitFor({ timeout: 600_000 });
  const ms = Date.now() - started;
  const text = await done.textContent();
  console.log(`BENCH load all (${as}): ${ms} ms after the first page; ${text.trim()}`);
}

async function scrolling(page) {
  await page.goto(`${base}/?group=&version=v1&resource=pods`);
  await page.getByRole('button', { name: 'Load all pages' }).click();
  await page.getByTestId('load-all-progress').filter({ hasText: /^All \d+ loaded/ }).waitFor({ timeout: 600_000 });
  const deltas = await page.evaluate(() => new Promise((resolve) => {
    const viewport = document.querySelector('[data-testid=grid-viewport]');
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
  }));
  const s = stats(deltas);
  console.log(`BENCH scroll frames: ${s.n} frames in 4 s (${(s.n / 4).toFixed(0)} fps), frame time p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, max ${s.max.toFixed(1)} ms (240 px per frame over 10,000 rows)`);
}

(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const parts = (process.env.BENCH_PARTS || 'first,load,scroll').split(',');
    if (parts.includes('first')) {
      await firstRows(page);
      await firstRows(page, 'load-0');
    }
    if (parts.includes('load')) for (const as of ['table', 'json', 'cbor']) await loadAll(page, as);
    if (parts.includes('scroll')) await scrolling(page);
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
