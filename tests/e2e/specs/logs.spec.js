// A pod's log: read with options, followed as kube-sim's kubelet writes lines, resumed after a
// drop without losing or repeating a line, interleaved across containers, the previous run, search,
// pause and download.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

const json = { 'Content-Type': 'application/json', Accept: 'application/json' };

async function runningPod(request) {
  const pods = await (await request.get(`${simUrl()}/api/v1/namespaces/demo/pods`, { headers: json })).json();
  const pod = pods.items.find((p) => p.status.phase === 'Running' && p.spec.containers.length === 1);
  expect(pod).toBeTruthy();
  return pod;
}

async function openLog(page, name) {
  await page.goto(`./?group=&version=v1&resource=pods&namespace=demo&name=${name}`);
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${name}`);
  await page.getByRole('region', { name: 'Subresources' }).getByRole('button', { name: 'log', exact: true }).click();
  return page.getByRole('region', { name: 'Pod log' });
}

const shownLines = async (log) => (await log.getByTestId('log-text').textContent()).split('\n').filter((l) => l);
const seqs = (lines) => lines.map((l) => Number((l.match(/seq=(\d+)/) || [])[1]));

test('a log is read with tailLines, shown with timestamps on demand, searched with a count, and downloaded', async ({ page, request }) => {
  const pod = await runningPod(request);
  const log = await openLog(page, pod.metadata.name);
  await expect(log.getByTestId('log-state')).toContainText('lines read');
  await log.getByLabel('tailLines').fill('5');
  await log.getByLabel('tailLines').press('Enter');
  await expect(log.getByTestId('log-count')).toHaveText('5 lines');
  let lines = await shownLines(log);
  expect(lines).toHaveLength(5);
  expect(lines[0]).not.toMatch(/^\d{4}-\d\d-\d\dT/);
  // The explorer always asks for the stamps; showing them is the view's business (no new request).
  await log.getByLabel('Timestamps').check();
  lines = await shownLines(log);
  expect(lines.every((l) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z /.test(l))).toBe(true);

  // Search counts and filters the kept lines.
  const last = lines[4].split(' ').slice(1).join(' ');
  const needle = last.slice(-12);
  await log.getByLabel('Search the log').fill(needle);
  await expect(log.getByTestId('log-count')).toHaveText('1 matching lines of 5');
  await expect(log.getByTestId('log-text')).toContainText(needle);
  await log.getByLabel('Search the log').fill('no such text anywhere');
  await expect(log.getByTestId('log-text')).toHaveText('(no line matches the search)');
  await log.getByLabel('Search the log').fill('');

  // Wrap off: long lines scroll sideways instead.
  await log.getByLabel('Wrap').uncheck();
  await expect(log.getByTestId('log-text')).toHaveClass(/log-text--nowrap/);
  await saveScreen(page, 'log-read');

  const [download] = await Promise.all([page.waitForEvent('download'), log.getByTestId('log-download').click()]);
  expect(download.suggestedFilename()).toBe(`${pod.metadata.name}_${pod.spec.containers[0].name}.log`);
  const saved = require('fs').readFileSync(await download.path(), 'utf8');
  expect(saved.split('\n').filter((l) => l)).toEqual(lines);
});

test('follow shows new lines as they are written, pauses, and resumes from sinceTime after a drop without a gap or a repeat', async ({ page, request }) => {
  const pod = await runningPod(request);
  const log = await openLog(page, pod.metadata.name);
  await log.getByLabel('tailLines').fill('3');
  await log.getByLabel('tailLines').press('Enter');
  await expect(log.getByTestId('log-count')).toHaveText('3 lines');
  const follows = [];
  page.on('request', (r) => r.url().includes('/log?') && r.url().includes('follow=true') && follows.push(r.url()));
  await log.getByTestId('log-follow').check();
  await expect(log.getByTestId('log-state')).toHaveText('following');
  // kube-sim's kubelet writes a line a second.
  await expect.poll(async () => (await shownLines(log)).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(5);

  // Pause holds the view while lines keep coming; Resume shows them.
  await log.getByTestId('log-pause').click();
  const held = (await shownLines(log)).length;
  await expect(log.getByTestId('log-pause')).toHaveText(/^Resume \([1-9]\d* new\)$/, { timeout: 10_000 });
  expect((await shownLines(log)).length).toBe(held);
  await log.getByTestId('log-pause').click();
  await expect(log.getByTestId('log-pause')).toHaveText('Pause');
  expect((await shownLines(log)).length).toBeGreaterThan(held);

  // The server cuts every stream: the follow reconnects from its last line's second.
  const before = (await shownLines(log)).length;
  const dropped = await (await request.post(`${simUrl()}/_sim/drop-watches`)).json();
  expect(dropped.dropped).toBeGreaterThanOrEqual(1);
  await expect(log.getByTestId('log-state')).toContainText('reconnecting in 1 s from sinceTime (attempt 1)');
  await expect(log.getByTestId('log-state')).toHaveText('following', { timeout: 10_000 });
  await expect.poll(async () => (await shownLines(log)).length, { timeout: 10_000 }).toBeGreaterThan(before + 1);
  expect(follows.length).toBe(2);
  expect(follows[1]).toMatch(/sinceTime=\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A\d\dZ/);
  expect(follows[1]).not.toContain('tailLines');
  await saveScreen(page, 'log-follow');
  const numbers = seqs(await shownLines(log));
  if (numbers.every((n) => !Number.isNaN(n))) {
    // Workers' lines carry their sequence number: consecutive, none lost or repeated.
    numbers.forEach((n, i) => i > 0 && expect(n).toBe(numbers[i - 1] + 1));
  } else {
    // nginx's lines carry no number: none of them repeats (each has its own second).
    const lines = await shownLines(log);
    expect(new Set(lines).size).toBe(lines.length);
  }
});

test('all containers interleave by time, and the previous run is read or refused in the kubelet\'s words', async ({ page, request }) => {
  const name = `two-${Date.now().toString(36)}`;
  const created = await request.post(`${simUrl()}/api/v1/namespaces/demo/pods`, {
    headers: json,
    data: {
      apiVersion: 'v1', kind: 'Pod', metadata: { name },
      spec: { containers: [{ name: 'app', image: 'ghcr.io/example/worker:3.2.0' }, { name: 'sidecar', image: 'ghcr.io/example/proxy:1.0' }] },
    },
  });
  expect(created.status()).toBe(201);
  await expect.poll(async () => (await (await request.get(`${simUrl()}/api/v1/namespaces/demo/pods/${name}`, { headers: json })).json()).status.phase, { timeout: 10_000 }).toBe('Running');
  try {
    const log = await openLog(page, name);
    await log.getByLabel('Container').selectOption({ label: 'All containers, by time' });
    await expect(log.getByTestId('log-state')).toHaveText(/app: \d+ lines read · sidecar: \d+ lines read/);
    await log.getByLabel('Timestamps').check();
    const lines = await shownLines(log);
    expect(lines.some((l) => l.startsWith('[app] '))).toBe(true);
    expect(lines.some((l) => l.startsWith('[sidecar] '))).toBe(true);
    const times = lines.map((l) => Date.parse(l.split(' ')[1]));
    times.forEach((t, i) => i > 0 && expect(t).toBeGreaterThanOrEqual(times[i - 1]));
    await saveScreen(page, 'log-all-containers');

    // No restart yet: the server says there is no previous run.
    await log.getByLabel('Container').selectOption('app');
    await log.getByLabel('Previous run').check();
    await expect(page.getByTestId('status-message')).toContainText(`previous terminated container "app" in pod "${name}" not found`);

    // Once the status records a terminated run, its log is read, ending with the exit.
    const pod = await (await request.get(`${simUrl()}/api/v1/namespaces/demo/pods/${name}`, { headers: json })).json();
    pod.status.containerStatuses[0].restartCount = 1;
    pod.status.containerStatuses[0].lastState = { terminated: { exitCode: 1, reason: 'Error', startedAt: '2026-11-24T09:00:00Z', finishedAt: '2026-11-24T09:00:10Z' } };
    const put = await request.put(`${simUrl()}/api/v1/namespaces/demo/pods/${name}/status`, { headers: json, data: pod });
    expect(put.status()).toBe(200);
    await page.reload();
    await page.getByRole('region', { name: 'Subresources' }).getByRole('button', { name: 'log', exact: true }).click();
    const again = page.getByRole('region', { name: 'Pod log' });
    await again.getByLabel('Previous run').check();
    await expect(again.getByTestId('log-text')).toContainText('exiting');
    expect((await shownLines(again)).at(-1)).toContain('exiting: lost connection to upstream');
  } finally {
    await request.delete(`${simUrl()}/api/v1/namespaces/demo/pods/${name}`);
  }
});
