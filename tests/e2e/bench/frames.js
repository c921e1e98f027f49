// What the watch benchmarks (watch.bench.js, replay.bench.js) read off the page under test: its
// frame times, from requestAnimationFrame deltas, and the live view's cost counters.

/** Starts recording the time between animation frames. */
async function startFrames(page) {
  await page.evaluate(() => {
    window.__frames = [];
    window.__recording = true;
    let last = performance.now();
    const tick = (t) => {
      window.__frames.push(t - last);
      last = t;
      if (window.__recording) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

/** Stops recording; the frame times in milliseconds, sorted (the first, partial one left out). */
async function stopFrames(page) {
  const frames = await page.evaluate(() => {
    window.__recording = false;
    return window.__frames;
  });
  return frames.slice(1).sort((a, b) => a - b);
}

/** The p-th percentile of sorted values (NaN when there are none). */
function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The live view's counters: events applied and the milliseconds spent per stage so far. */
async function costs(page) {
  const dd = page.getByTestId('live-events');
  const read = async (name) => Number(await dd.getAttribute(name));
  return {
    applied: await read('data-applied'),
    apply: await read('data-apply-ms'),
    decode: await read('data-decode-ms'),
    reflect: await read('data-reflect-ms'),
    record: await read('data-record-ms'),
    grid: await read('data-grid-ms'),
    grids: await read('data-grids'),
  };
}

/** Starts Chromium's sampling profiler on the page (for a profile of where its time goes). */
async function startProfile(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  return cdp;
}

/** Starts a Chromium trace of the page's renderer (the timeline's categories: script, style,
 * layout, paint, garbage collection, network data), for [`stopTrace`]. */
async function startTrace(page) {
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'blink.user_timing'] },
  });
  return { cdp, events };
}

/** Stops the trace and returns lines naming where the renderer's main thread spent its time:
 * the self time of each kind of trace event (time inside nested events is theirs), the
 * biggest first, and the idle rest. */
async function stopTrace({ cdp, events }, top = 20) {
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  await done;
  await cdp.detach();
  const threadNames = new Map();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name') threadNames.set(`${e.pid}:${e.tid}`, e.args.name);
  }
  // The page's main thread: the renderer thread with the most complete events.
  const counts = new Map();
  for (const e of events) {
    const t = `${e.pid}:${e.tid}`;
    if (e.ph === 'X' && threadNames.get(t) === 'CrRendererMain') counts.set(t, (counts.get(t) || 0) + 1);
  }
  const main = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const spans = events
    .filter((e) => `${e.pid}:${e.tid}` === main && e.ph === 'X' && typeof e.dur === 'number')
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const self = new Map();
  const stack = [];
  let first = Infinity;
  let last = -Infinity;
  let busy = 0;
  for (const e of spans) {
    while (stack.length && stack[stack.length - 1].end <= e.ts) stack.pop();
    const end = e.ts + e.dur;
    if (stack.length) {
      const parent = stack[stack.length - 1];
      self.set(parent.name, (self.get(parent.name) || 0) - Math.min(e.dur, parent.end - e.ts));
    } else {
      busy += e.dur;
    }
    self.set(e.name, (self.get(e.name) || 0) + e.dur);
    stack.push({ name: e.name, end });
    first = Math.min(first, e.ts);
    last = Math.max(last, end);
  }
  const span = Math.max(1, last - first);
  const lines = [`trace: main thread busy ${(busy / 1000).toFixed(0)} ms of ${(span / 1000).toFixed(0)} ms`];
  [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, v]) => lines.push(`${(v / 1000).toFixed(1).padStart(9)} ms ${((100 * v) / span).toFixed(1).padStart(5)}%  ${k}`));
  return lines;
}

/** Stops the profiler and returns lines naming the `top` functions by self time and by inclusive
 * time (in ms and as a share of the sampled time). Wasm functions have their Rust names only in
 * a build that keeps the name section (`data-wasm-opt="0"`, as scripts/bench-watch --profile). */
async function stopProfile(cdp, top = 25) {
  const { profile } = await cdp.send('Profiler.stop');
  await cdp.detach();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  profile.nodes.forEach((n) => (n.children || []).forEach((c) => parent.set(c, n.id)));
  const name = (n) => n.callFrame.functionName || `(anonymous ${n.callFrame.url.split('/').pop()})`;
  const self = new Map();
  const inclusive = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] || 0) / 1000;
    total += ms;
    self.set(name(byId.get(id)), (self.get(name(byId.get(id))) || 0) + ms);
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const n = name(byId.get(cur));
      if (!seen.has(n)) {
        seen.add(n);
        inclusive.set(n, (inclusive.get(n) || 0) + ms);
      }
    }
  });
  const lines = [`profile: ${total.toFixed(0)} ms sampled`];
  const list = (title, map) => {
    lines.push(title);
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .forEach(([k, v]) => lines.push(`${v.toFixed(1).padStart(9)} ms ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k.slice(0, 160)}`));
  };
  list('self time:', self);
  list('inclusive time:', inclusive);
  return lines;
}

module.exports = { startFrames, stopFrames, percentile, costs, startProfile, stopProfile, startTrace, stopTrace };
