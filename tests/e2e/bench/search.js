// In-browser benchmark of the Search screen (figures, not a test): run by scripts/bench against the
// release build with `kube-sim --dataset scale:10000` behind it. Prints one "BENCH ..." line per
// search: from the moment the search is asked for (a link to it opened, after the app is up) to
// the page saying it ended, with what the page says it found, how many list requests it sent and
// the bytes of their bodies (Resource Timing), and the wasm heap in use afterwards (the app counts
// its allocations: heapInUse()), which shows that only what is shown is kept.
const { chromium } = require('@playwright/test');

const base = process.env.EXPLORER_URL;
if (!base) throw new Error('EXPLORER_URL is not set: run this through scripts/bench');
const args = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];
const METADATA_LIST = 'as=PartialObjectMetadataList';

const SEARCHES = [
  ['a rare name, whole cluster', 'search=load-000123'],
  ['a name 10,000 pods match, whole cluster', 'search=load'],
  ['a label selector 10,000 pods match, whole cluster', 'search=&searchLabels=app%3Dload'],
  ['a name, one namespace of 1,000 pods', 'search=load-0000&namespace=load-3'],
];

async function once(page, query) {
  const lists = [];
  const onRequest = (request) => {
    if ((request.headers().accept || '').includes(METADATA_LIST)) lists.push(request.url());
  };
  page.on('request', onRequest);
  await page.goto(`${base}/`);
  await page.getByLabel('Filter resource types').waitFor();
  // Into the app's own navigation (a new history entry, as a link inside the app would be), so
  // that the page load is not counted: from here on it is the search alone.
  const start = await page.evaluate((search) => {
    history.pushState(null, '', `?${search}`);
    dispatchEvent(new PopStateEvent('popstate'));
    return performance.now();
  }, query);
  await page.getByTestId('search-timing').filter({ hasText: /^in / }).waitFor({ timeout: 10 * 60_000 });
  const ms = (await page.evaluate(() => performance.now())) - start;
  page.off('request', onRequest);
  const facts = await page.evaluate(() => ({
    progress: document.querySelector('[data-testid=search-progress]').textContent,
    timing: document.querySelector('[data-testid=search-timing]').textContent,
    shown: document.querySelectorAll('[data-testid=search-hit]').length,
    bytes: performance.getEntriesByType('resource').filter((e) => e.name.includes('limit=500')).reduce((a, e) => a + e.decodedBodySize, 0),
    held: window.wasmBindings && window.wasmBindings.heapInUse ? window.wasmBindings.heapInUse() : NaN,
    // The pods' pages follow each other (each needs the last one's continue token): on the wire,
    // and between one page's last byte and the next page's request (the page's own share).
    pods: (() => {
      const pages = performance.getEntriesByType('resource').filter((e) => /\/pods\?.*limit=500/.test(e.name)).sort((a, b) => a.startTime - b.startTime);
      const wire = pages.reduce((a, e) => a + (e.responseEnd - e.startTime), 0);
      const gaps = pages.slice(1).reduce((a, e, i) => a + (e.startTime - pages[i].responseEnd), 0);
      return { n: pages.length, wire, gaps };
    })(),
  }));
  return { ms, lists: lists.length, ...facts };
}

(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    for (const [what, query] of SEARCHES) {
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push(await once(page, query));
      runs.sort((a, b) => a.ms - b.ms);
      const r = runs[1];
      const mb = (n) => (n / 1048576).toFixed(1);
      console.log(`BENCH search, ${what} (?${query}): median ${r.ms.toFixed(0)} ms of 3 (min ${runs[0].ms.toFixed(0)}, max ${runs[2].ms.toFixed(0)}) to the end; the page: "${r.progress}" ${r.timing}; ${r.shown} matches shown; ${r.lists} list requests, ${mb(r.bytes)} MB of pages; wasm heap in use after it ${mb(r.held)} MB (the wire inspector keeps its last 200 exchanges' bodies); the pods' ${r.pods.n} pages: ${r.pods.wire.toFixed(0)} ms on the wire, ${r.pods.gaps.toFixed(0)} ms between one's end and the next's request`);
    }
  } finally {
    await browser.close();
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
