// Frame times of the page under test, from requestAnimationFrame deltas: shared by the watch
// benchmarks (watch.bench.js, replay.bench.js).

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

module.exports = { startFrames, stopFrames };
