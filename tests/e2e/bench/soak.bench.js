// Benchmark, not a test (`scripts/bench soak`, #41): a live view of 10,000 pods left open while
// kube-sim changes 200 pods a second (/_sim/churn) for SOAK_MINUTES (30 by default), with the
// event timeline, one object's history and the wire inspector open, as someone leaves the
// explorer open on a busy cluster. Every SOAK_SAMPLE_SECONDS (60): the wasm heap in use (the
// app's own count, heapInUse()), the JS heap after a collection (CDP), the wasm memory's size
// (its high-water mark), the watches kube-sim has open, the events applied, the entries the
// timeline, the history and the inspector show, and the frame times over 5 s. Beside it, a second
// tab follows the log of a pod whose container writes 20 lines a second (36,000 in 30 minutes,
// past the 10,000 lines a log view keeps): its lines kept and its own wasm heap, each minute.
// Printed as BENCH lines; the aim: the heap after 30 minutes within 10% of the heap after 5,
// every bound holding. It fails only if the page never shows the pods or stops applying events,
// or the log stops.
const { test, expect } = require('@playwright/test');
const { startFrames, stopFrames, percentile } = require('./frames');

const SIM = () => process.env.KUBE_SIM_URL;
const MINUTES = Number(process.env.SOAK_MINUTES || 30);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS || 60);
const RATE = Number(process.env.SOAK_RATE || 200);
// SOAK_PANELS=0: the timeline paused, no history and no inspector (to tell what holds memory).
const PANELS = process.env.SOAK_PANELS !== '0';
// SOAK_LOG=0: no log tab.
const LOG = process.env.SOAK_LOG !== '0';
// The log writer: 20 lines a second through kube-sim's simulated shell.
const WRITER = { namespace: 'load-0', name: 'soak-log-writer' };

// Opens the writer pod's log in `page` and follows it (as logs.spec.js does).
async function followLog(page) {
  await page.goto(`/?group=&version=v1&resource=pods&namespace=${WRITER.namespace}&name=${WRITER.name}`);
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${WRITER.name}`, { timeout: 5 * 60_000 });
  await page.getByRole('region', { name: 'Subresources' }).getByRole('button', { name: 'log', exact: true }).click();
  const log = page.getByRole('region', { name: 'Pod log' });
  await log.getByTestId('log-follow').check();
  await expect(log.getByTestId('log-state')).toHaveText('following', { timeout: 60_000 });
  return log;
}

test(`soak: 10,000 pods live for ${MINUTES} min at ${RATE} changes/s`, async ({ page, request }) => {
  test.setTimeout((MINUTES + 10) * 60_000);
  await page.addInitScript(() => {
    addEventListener('TrunkApplicationStarted', (e) => { window.__benchWasm = e.detail && e.detail.wasm; });
  });
  let logPage = null;
  let log = null;
  if (LOG) {
    const created = await request.post(`${SIM()}/api/v1/namespaces/${WRITER.namespace}/pods`, {
      data: {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: WRITER.name },
        spec: { containers: [{ name: 'writer', image: 'busybox:1.36', command: ['sh', '-c', 'while true; do seq 1 20; sleep 1; done'] }] },
      },
    });
    expect(created.status()).toBe(201);
    logPage = await page.context().newPage();
    log = await followLog(logPage);
    // The live view's tab in front again: a tab behind another gets one frame a second.
    await page.bringToFront();
  }
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
    const logSeen = logPage ? await logPage.evaluate(() => ({
      logKept: Number((document.querySelector('[data-testid=log-count]')?.textContent || '').replace(/[^0-9]/g, '')),
      logState: document.querySelector('[data-testid=log-state]')?.textContent.trim(),
      logHeld: window.wasmBindings && window.wasmBindings.heapInUse ? window.wasmBindings.heapInUse() : NaN,
    })) : { logKept: NaN, logState: 'none', logHeld: NaN };
    const sample = { at: (Date.now() - started) / 60_000, ...seen, ...logSeen, js: usedSize, openStreams, frames };
    samples.push(sample);
    console.log(
      `BENCH soak ${sample.at.toFixed(1)} min: wasm heap in use ${mb(seen.held)} MB, JS heap ${mb(usedSize)} MB, ` +
        `wasm memory ${mb(seen.wasm)} MB | events applied ${seen.applied}, ${seen.rows} |  watches open on kube-sim ${openStreams} | ` +
        `timeline ${seen.timeline} entries shown, history of ${watched}: ${seen.versions} versions, inspector ${seen.inspector} entries | ` +
        `log tab: ${logSeen.logKept} lines kept (${logSeen.logState}), its wasm heap in use ${mb(logSeen.logHeld)} MB | ` +
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
      `(${growth(early.js, last.js)}); most at once: watches ${most('openStreams')}, timeline ${most('timeline')}, versions ${most('versions')}, inspector ${most('inspector')}` +
      (LOG ? `, log lines kept ${most('logKept')}; the log tab's heap ${mb(early.logHeld)} MB at ${early.at.toFixed(1)} min, ${mb(last.logHeld)} MB at ${last.at.toFixed(1)} min (${growth(early.logHeld, last.logHeld)})` : ''),
  );
  expect(last.applied).toBeGreaterThan(early.applied);
  if (LOG) {
    expect(last.logState).toMatch(/^following/);
    expect(last.logKept).toBeGreaterThan(0);
  }
});
