// Benchmark, not a test (scripts/bench-watch): how many watch events per second the page applies
// to a 10,000-pod cache, and how smooth it stays meanwhile (requestAnimationFrame deltas), for
// JSON and CBOR watches. kube-sim (scale:10000) modifies pods at a steady rate on request
// (/_sim/churn); the figures are printed as BENCH lines. It fails only if the page never shows
// the collection or applies nothing.
const { test, expect } = require('@playwright/test');
const { startFrames, stopFrames, percentile, costs } = require('./frames');

const SIM = () => process.env.KUBE_SIM_URL;
const RATES = (process.env.BENCH_RATES || '2000 5000 10000 20000').split(/\s+/).filter(Boolean).map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS || 8);

async function applied(page) {
  return Number(await page.getByTestId('live-events').getAttribute('data-applied'));
}

/** The page's own accounts: events applied, ms spent applying them (decoding, the reflector's
 * steps, the timeline and history), ms patching the grid, draws. */
// BENCH_ROUTES="proxy direct": through the dev proxy (trunk serve), as a user of `trunk serve`
// or `kubectl proxy` is, and/or straight to kube-sim.
const ROUTES = (process.env.BENCH_ROUTES || 'proxy').split(/\s+/).filter(Boolean);

for (const [route, format] of ROUTES.flatMap((r) => ['json', 'cbor'].map((f) => [r, f]))) {
  test(`watch ${format} (${route}): events applied per second to 10,000 pods, and frame times`, async ({ page, request }) => {
    // Route "direct": the page talks to kube-sim itself (CORS), not through the dev proxy.
    const direct = route === 'direct' ? `&api-base=${SIM()}` : '';
    await page.goto(`/?group=&version=v1&resource=pods&watch=1&as=${format}${direct}`);
    await expect(page.getByTestId('live-state')).toContainText('watching', { timeout: 5 * 60_000 });
    const rows = page.getByTestId('live-view').getByTestId('row-count');
    await expect(rows).toHaveText(/^(\d{2},?\d{3}|\d{5,}) rows/, { timeout: 5 * 60_000 });
    const cached = Number((await rows.textContent()).replace(/\D/g, ''));
    expect(cached).toBeGreaterThanOrEqual(10_000);
    for (const rate of RATES) {
      // A quiet second first, so that the previous rate's backlog is not counted.
      await page.waitForTimeout(1_500);
      await startFrames(page);
      const before = await applied(page);
      const costsBefore = await costs(page);
      const started = Date.now();
      const churn = await request.post(`${SIM()}/_sim/churn?rate=${rate}&seconds=${SECONDS}`);
      expect(churn.status()).toBe(200);
      // Interactivity during the burst: typing in the quick filter and seeing it filtered.
      await page.waitForTimeout((SECONDS * 1000) / 2);
      const filter = page.getByTestId('live-view').getByLabel('Quick filter');
      const typed = Date.now();
      await filter.fill('load-3');
      await expect(rows).toHaveText(/ of /, { timeout: 60_000 });
      const filterMs = Date.now() - typed;
      await filter.fill('');
      await page.waitForTimeout(Math.max(0, started + SECONDS * 1000 - Date.now()));
      const during = (await applied(page)) - before;
      const duringSeconds = (Date.now() - started) / 1000;
      // Whatever was still queued when the churn stopped: give the page 20 s to catch up.
      const offered = rate * SECONDS;
      let after = during;
      const catchUp = Date.now();
      while (after < offered * 0.98 && Date.now() - catchUp < 20_000) {
        await page.waitForTimeout(250);
        after = (await applied(page)) - before;
      }
      const totalSeconds = (Date.now() - started) / 1000;
      const sorted = await stopFrames(page);
      const costsAfter = await costs(page);
      const events = Math.max(1, costsAfter.applied - costsBefore.applied);
      const draws = Math.max(1, costsAfter.grids - costsBefore.grids);
      const where =
        `page time: applying ${((costsAfter.apply - costsBefore.apply) / events * 1000).toFixed(0)} µs per event ` +
        `(decode ${((costsAfter.decode - costsBefore.decode) / events * 1000).toFixed(0)}, ` +
        `reflector ${((costsAfter.reflect - costsBefore.reflect) / events * 1000).toFixed(0)}, ` +
        `timeline and history ${((costsAfter.record - costsBefore.record) / events * 1000).toFixed(0)}), ` +
        `grid ${((costsAfter.grid - costsBefore.grid) / draws).toFixed(1)} ms per draw (${draws} draws)`;
      const line =
        `BENCH watch ${format.toUpperCase()}${direct ? ' (direct to kube-sim)' : ' (through the dev proxy)'} offered ${rate}/s for ${SECONDS} s (${offered} events) into ${cached} pods | ` +
        `applied during the churn ${Math.round(during / duringSeconds)}/s, all ${after} applied after ${totalSeconds.toFixed(1)} s ` +
        `(sustained ${Math.round(after / totalSeconds)}/s) | frames ${sorted.length}: p50 ${percentile(sorted, 50).toFixed(1)} ms, ` +
        `p95 ${percentile(sorted, 95).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(0)} ms | quick filter answered in ${filterMs} ms | ${where}`;
      console.log(line);
      expect(after).toBeGreaterThan(0);
    }
  });
}
