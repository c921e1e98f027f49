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

module.exports = { startFrames, stopFrames, percentile, costs };
