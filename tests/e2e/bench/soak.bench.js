// Benchmark, not a test (`scripts/bench soak`, #41): a live view of 10,000 pods left open while
// kube-sim changes 200 pods a second (/_sim/churn) for SOAK_MINUTES (30 by default), with the
// event timeline, one object's history and the wire inspector open, as someone leaves the
// explorer open on a busy cluster. Every SOAK_SAMPLE_SECONDS (60): the wasm heap in use (the
// app's own count, heapInUse()), the JS heap after a collection (CDP), the wasm memory's size
// (its high-water mark), the watches kube-sim has open, the events applied, the entries the
// timeline, the history and the inspector show, and the frame times over 5 s. Printed as BENCH
// lines; the aim: the heap after 30 minutes within 10% of the heap after 5, every bound holding.
// It fails only if the page never shows the pods or stops applying events.
const { test, expect } = require('@playwright/test');
const { startFrames, stopFrames, percentile } = require('./frames');

const SIM = () => process.env.KUBE_SIM_URL;
const MINUTES = Number(process.env.SOAK_MINUTES || 30);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS || 60);
const RATE = Number(process.env.SOAK_RATE || 200);
// SOAK_PANELS=0: the timeline paused, no history and no inspector (to tell what holds memory).
const PANELS = process.env.SOAK_PANELS !== '0';

test(`soak: 10,000 pods live for ${MINUTES} min at ${RATE} changes/s`, async ({ page, request }) => {
  test.setTimeout((MINUTES + 10) * 60_000);
  await page.addInitScript(() => {
    addEventListener('TrunkApplicationStarted', (e) => { window.__benchWasm = e.detail && e.detail.wasm; });
  });
  await page.goto('/?group=&version=v1&resource=pods&watch=1');
  const live = page.getByTestId('live-view');
  await expect(page.getByTestId('live-state')).toContainText('watching', { timeout: 5 * 60_000 });
  await expect(live.getByTestId('row-count')).toHaveText(/^(\d{2},?\d{3}|\d{5,}) rows/, { timeout: 5 * 60_000 });
  if (PANELS) await page.getByRole('button', { name: 'Wire inspector' }).click();
  else await page.getByRole('button', { name: 'Pause timeline' }).click();

  const churn = await request.post(`${SIM()}/_sim/churn?rate=${RATE}&seconds=${MINUTES * 60 + 30}`);
  expect(churn.status()).toBe(200);
  // One object's history open: the first that changed.
  const historyOf = page.getByRole('combobox', { name: 'History of object' });
  let watched = 'none';
  if (PANELS) {
    await expect(historyOf.locator('option').nth(1)).toBeAttached({ timeout: 60_000 });
    watched = await historyOf.locator('option').nth(1).getAttribute('value');
    await historyOf.selectOption(watched);
  }

  const cdp = await page.context().newCDPSession(page);
  const mb = (n) => (n / 1048576).toFixed(1);
  const samples = [];
  const started = Date.now();
  for (let minute = 1; Date.now() - started < MINUTES * 60_000; minute += 1) {
    await page.waitForTimeout(Math.max(0, started + minute * SAMPLE_SECONDS * 1000 - 5_000 - Date.now()));
    await startFrames(page);
    await page.waitForTimeout(5_000);
    const frames = await stopFrames(page);
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = await cdp.send('Runtime.getHeapUsage');
    const seen = await page.evaluate(() => ({
      wasm: window.__benchWasm ? window.__benchWasm.memory.buffer.byteLength : NaN,
      held: window.wasmBindings && window.wasmBindings.heapInUse ? window.wasmBindings.heapInUse() : NaN,
      applied: Number(document.querySelector('[data-testid=live-events]')?.getAttribute('data-applied')),
      rows: document.querySelector('[data-testid=live-view] [data-testid=row-count]')?.textContent.trim(),
      timeline: document.querySelectorAll('[data-testid=timeline-entry]').length,
      versions: document.querySelectorAll('.history select[aria-label=From] option').length,
      inspector: document.querySelectorAll('[data-testid=inspector-row]').length,
    }));
    const { openStreams } = await (await request.get(`${SIM()}/_sim/state`)).json();
    const sample = { at: (Date.now() - started) / 60_000, ...seen, js: usedSize, openStreams, frames };
    samples.push(sample);
    console.log(
      `BENCH soak ${sample.at.toFixed(1)} min: wasm heap in use ${mb(seen.held)} MB, JS heap ${mb(usedSize)} MB, ` +
        `wasm memory ${mb(seen.wasm)} MB | events applied ${seen.applied}, ${seen.rows} |  watches open on kube-sim ${openStreams} | ` +
        `timeline ${seen.timeline} entries shown, history of ${watched}: ${seen.versions} versions, inspector ${seen.inspector} entries | ` +
        `frames p50 ${percentile(frames, 50).toFixed(1)} ms, p95 ${percentile(frames, 95).toFixed(1)} ms, max ${frames.length ? frames[frames.length - 1].toFixed(0) : NaN} ms`,
    );
  }
  await cdp.detach();
  const near = (minutes) => samples.reduce((best, s) => (Math.abs(s.at - minutes) < Math.abs(best.at - minutes) ? s : best));
  const [early, last] = [MINUTES > 5 ? near(5) : samples[0], samples[samples.length - 1]];
  const growth = (a, b) => `${(((b - a) / a) * 100).toFixed(1)}%`;
  const most = (key) => Math.max(...samples.map((s) => s[key]));
  console.log(
    `BENCH soak summary (${MINUTES} min, ${RATE} changes/s into 10,000 pods): wasm heap in use ${mb(early.held)} MB at ${early.at.toFixed(1)} min, ` +
      `${mb(last.held)} MB at ${last.at.toFixed(1)} min (${growth(early.held, last.held)}); JS heap ${mb(early.js)} → ${mb(last.js)} MB ` +
      `(${growth(early.js, last.js)}); most at once: watches ${most('openStreams')}, timeline ${most('timeline')}, versions ${most('versions')}, inspector ${most('inspector')}`,
  );
  expect(last.applied).toBeGreaterThan(early.applied);
});
