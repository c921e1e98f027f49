// Benchmark, not a test (scripts/bench-watch): the page's own capacity, apart from kube-sim. A
// real kube-sim watch stream (the page's own request, fetched from kube-sim while it churned pods)
// is recorded once, then replayed to the page at a fixed offered rate by a small local server
// that only copies recorded bytes (kube-sim and the dev proxy share this 2-core machine with the
// browser; kube-sim alone needs about a core at 10,000 changes/s). The whole page pipeline runs:
// fetch stream, framer, lazy decoder, reflector, grid patching, drawing, timeline and history.
// Reports applied events/s and frame times as BENCH lines; fails only if nothing is applied.
const http = require('http');
const { test, expect } = require('@playwright/test');
const { startFrames, stopFrames, percentile, costs, startProfile, stopProfile, startTrace, stopTrace } = require('./frames');
const { saveScreen } = require('../specs/helpers');

const SIM = () => process.env.KUBE_SIM_URL;
const RATES = (process.env.REPLAY_RATES || '10000').split(/\s+/).filter(Boolean).map(Number);
// Events recorded per format (kube-sim churns at 10,000/s while they are recorded).
const RECORD_SECONDS = Number(process.env.REPLAY_RECORD_SECONDS || 4);
// REPLAY_PROFILE=1: also print where the page's time went during the offer (a CPU profile);
// REPLAY_TRACE=1: and how its main thread spent it (script, style, layout, paint, GC: a trace).
const PROFILE = Boolean(process.env.REPLAY_PROFILE);
const TRACE = Boolean(process.env.REPLAY_TRACE);

function cors(req, res) {
  const origin = req.headers.origin;
  if (origin) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] || 'Content-Type');
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
  }
}

function isPodWatch(url) {
  const u = new URL(url, 'http://x');
  return u.pathname === '/api/v1/pods' && (u.searchParams.get('watch') === 'true' || u.searchParams.get('watch') === '1');
}

/** Reads `url` from kube-sim with `headers`: the bytes until the stream first goes quiet for a
 * second (the initial events), then, after `churn()` resolves, the rest until it is quiet again
 * for two seconds (kube-sim may send the churn's events later than it makes them). */
function record(url, headers, churn) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let initial = null;
    let quiet = null;
    let contentType = '';
    const request = http.get(new URL(url, SIM()), { headers }, (response) => {
      contentType = response.headers['content-type'] || '';
      const settle = () => {
        clearTimeout(quiet);
        quiet = setTimeout(async () => {
          if (initial !== null) return;
          initial = Buffer.concat(chunks.splice(0));
          try {
            await churn();
          } catch (e) {
            reject(e);
            return;
          }
          const deadline = Date.now() + 120_000;
          const done = () => {
            request.destroy();
            resolve({ contentType, initial, churned: Buffer.concat(chunks) });
          };
          let last = -1;
          const poll = setInterval(() => {
            if (chunks.length === last || Date.now() > deadline) {
              clearInterval(poll);
              done();
            }
            last = chunks.length;
          }, 2000);
        }, 1000);
      };
      settle();
      response.on('data', (chunk) => {
        chunks.push(chunk);
        if (initial === null) settle();
      });
      response.on('error', () => {});
    });
    request.on('error', (e) => {
      if (initial === null) reject(e);
    });
  });
}

/** A server between the page and kube-sim: everything is proxied, except the page's pod watch,
 * which is held until `replay` is set and then answered from it. */
function startServer() {
  const state = { watchRequest: null, onWatch: null, replay: null };
  const server = http.createServer((req, res) => {
    cors(req, res);
    if (req.method === 'OPTIONS') {
      res.writeHead(204);
      res.end();
      return;
    }
    if (isPodWatch(req.url) && state.onWatch) {
      state.onWatch(req, res);
      return;
    }
    const upstream = http.request(new URL(req.url, SIM()), { method: req.method, headers: { ...req.headers, host: new URL(SIM()).host } }, (response) => {
      res.writeHead(response.statusCode, response.headers);
      response.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, state, port: server.address().port })));
}

for (const format of ['json', 'cbor']) {
  test(`replay ${format}: the page's capacity on a recorded kube-sim watch stream`, async ({ page, request }) => {
    test.setTimeout(15 * 60_000);
    const { server, state, port } = await startServer();
    try {
      for (const rate of RATES) {
        // 1. The page's watch request, held while the same request is recorded from kube-sim.
        // The pod watch the page keeps: the last one asked for once none has come for 2 s (the
        // live view may start its watch again while the page settles, abandoning the first).
        const watch = new Promise((resolve) => {
          let latest = null;
          let settled = null;
          state.onWatch = (req, res) => {
            latest = { req, res };
            clearTimeout(settled);
            settled = setTimeout(() => {
              state.onWatch = null;
              resolve(latest);
            }, 2_000);
          };
        });
        await page.goto(`/?group=&version=v1&resource=pods&watch=1&as=${format}&api-base=http://127.0.0.1:${port}`);
        const { req, res } = await watch;
        const headers = { accept: req.headers.accept || '*/*' };
        // Every change kube-sim makes bumps its resourceVersion by one and is a pod change: the
        // events recorded are the difference.
        const simVersion = async () => Number((await (await request.get(`${SIM()}/_sim/state`)).json()).resourceVersion);
        let versionBefore = 0;
        const recorded = await record(req.url, headers, async () => {
          versionBefore = await simVersion();
          const churn = await request.post(`${SIM()}/_sim/churn?rate=10000&seconds=${RECORD_SECONDS}`);
          expect(churn.status()).toBe(200);
          await new Promise((r) => setTimeout(r, RECORD_SECONDS * 1000));
        });
        const churnEvents = (await simVersion()) - versionBefore;
        expect(recorded.initial.length).toBeGreaterThan(0);
        expect(recorded.churned.length).toBeGreaterThan(0);

        // 2. The page gets the initial events at once and shows them, then the churn paced at
        // the offered rate (each rate loads the page and records a stream of its own).
        res.writeHead(200, { 'content-type': recorded.contentType });
        res.write(recorded.initial);
        const rows = page.getByTestId('live-view').getByTestId('row-count');
        await expect(rows).toHaveText(/^(\d{2},?\d{3}|\d{5,}) rows/, { timeout: 5 * 60_000 });
        const cached = Number((await rows.textContent()).replace(/\D/g, ''));
        await page.waitForTimeout(1_500);
        await startFrames(page);
        const dd = page.getByTestId('live-events');
        const applied = async () => Number(await dd.getAttribute('data-applied'));
        const before = await applied();
        const costsBefore = await costs(page);
        const profiler = PROFILE ? await startProfile(page) : null;
        const tracer = TRACE ? await startTrace(page) : null;
        const bytes = recorded.churned;
        const seconds = churnEvents / rate;
        const started = Date.now();
        // Paced by bytes: by time t, the share t/seconds of the recorded churn has been sent.
        let sent = 0;
        await new Promise((resolve) => {
          const timer = setInterval(() => {
            const due = Math.min(bytes.length, Math.floor((bytes.length * (Date.now() - started)) / (seconds * 1000)));
            if (due > sent) {
              res.write(bytes.subarray(sent, due));
              sent = due;
            }
            if (sent >= bytes.length) {
              clearInterval(timer);
              resolve();
            }
          }, 4);
        });
        const offeredSeconds = (Date.now() - started) / 1000;
        const during = (await applied()) - before;
        if (tracer) console.log((await stopTrace(tracer)).map((l) => `BENCH replay ${format.toUpperCase()} ${l}`).join('\n'));
        if (profiler) console.log((await stopProfile(profiler)).map((l) => `BENCH replay ${format.toUpperCase()} ${l}`).join('\n'));
        // Until every event is applied, or nothing more is for 3 s: the time of the last one.
        let after = during;
        let lastAt = Date.now();
        while (after < churnEvents && Date.now() - lastAt < 3_000) {
          await page.waitForTimeout(100);
          const now = (await applied()) - before;
          if (now > after) {
            after = now;
            lastAt = Date.now();
          }
        }
        const totalSeconds = (lastAt - started) / 1000;
        const sorted = await stopFrames(page);
        const costsAfter = await costs(page);
        // What the page shows when it has caught up, the last rows changed still tinted
        // (artifacts/screens/replay-<format>-<rate>.png; taken after the figures were read: a
        // full-page screenshot during the offer cost a fifth of the events applied).
        await saveScreen(page, `replay-${format}-${rate}`);
        const events = Math.max(1, costsAfter.applied - costsBefore.applied);
        const per = (key) => (((costsAfter[key] - costsBefore[key]) / events) * 1000).toFixed(0);
        const draws = Math.max(1, costsAfter.grids - costsBefore.grids);
        console.log(
          `BENCH replay ${format.toUpperCase()} in-page (recorded kube-sim stream, ${(bytes.length / 1e6).toFixed(1)} MB of ` +
            `${churnEvents} changes) offered ${rate}/s for ${offeredSeconds.toFixed(1)} s into ${cached} pods | ` +
            `applied during the offer ${Math.round(during / offeredSeconds)}/s, ${after} of ${churnEvents} applied after ${totalSeconds.toFixed(1)} s ` +
            `(sustained ${Math.round(after / totalSeconds)}/s) | frames ${sorted.length}: p50 ${percentile(sorted, 50).toFixed(1)} ms, ` +
            `p95 ${percentile(sorted, 95).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(0)} ms | page time per event: ` +
            `decode ${per('decode')} µs, reflector ${per('reflect')} µs, timeline and history ${per('record')} µs; ` +
            `grid ${((costsAfter.grid - costsBefore.grid) / draws).toFixed(1)} ms per draw (${draws} draws)`,
        );
        expect(after).toBeGreaterThan(0);
        res.end();
      }
    } finally {
      server.close();
      server.closeAllConnections?.();
    }
  });
}
