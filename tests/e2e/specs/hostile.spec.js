// The hostile-server corpus (issue 41, item 4): the explorer pointed, by its `api-base` query, at
// a server that lies (tests/e2e/hostile-server.js, in front of a kube-sim). For each case a person
// opens the configmaps of `default` through /h/<case>; the page must say clearly what was wrong,
// raise no panic or page error, execute nothing the server sent (window.__hostile stays unset),
// read no more than a stated limit of an endless body, and keep working: the person then opens
// the namespaces through the same server and sees them. The spec prints every case's outcome.
const { test, expect } = require('@playwright/test');
const { saveScreen } = require('./helpers');

// Each case: the query it opens (besides the api-base and the configmaps of `default`), and the
// words the page must show about it.
const CASES = [
  { name: 'lying-content-type', query: 'watch=0', says: /invalid JSON: expected a JSON value, found '<' at byte 0/ },
  { name: 'invalid-utf8', query: 'watch=0', says: /invalid JSON: .*found byte 0xff at byte 72/ },
  { name: 'deep-nesting', query: 'watch=0', says: /invalid JSON: expected nesting at most 128 deep, found deeper nesting at byte \d+/ },
  { name: 'status-html', query: 'watch=0', says: /403 Forbidden[\s\S]*<img src=x onerror="window.__hostile=1"><script>window.__hostile=2<\/script><b>admin<\/b> says no/ },
  { name: 'empty-200', query: 'watch=0', says: /answered 200: HTTP 200 with an empty body/ },
  // A row of 1 cell and one of 5 for 3 columns: refused, naming the first row and the counts.
  {
    name: 'table-mismatch',
    query: 'watch=0',
    says: /expected 3 cells at \$\.rows\[0\]\.cells \(one per column of columnDefinitions\), found 1/,
  },
  // A 302 to another origin, and a 307 to the real list on the same origin: neither followed.
  {
    name: 'redirect-other-origin',
    query: 'watch=0',
    // An answer came (a 3xx), so not a network failure.
    says: /The response could not be read[\s\S]*\/h\/redirect-other-origin\/api\/v1\/namespaces\/default\/configmaps[^:]*: the server answered with a redirect, which the explorer does not follow/,
  },
  {
    name: 'redirect-same-origin',
    query: 'watch=0',
    // An answer came (a 3xx), so not a network failure.
    says: /The response could not be read[\s\S]*\/h\/redirect-same-origin\/api\/v1\/namespaces\/default\/configmaps[^:]*: the server answered with a redirect, which the explorer does not follow/,
  },
  // What the page may not be made to hold: each is cut at a stated limit (MAX_BODY_BYTES, 128 MiB
  // of one answer; MAX_EVENT_BYTES, 16 MiB of one watch event), and the connection closed: the
  // server reports how much it wrote before the page hung up, the limit plus what the socket
  // buffers took (up to 26 MB measured; 64 MiB allowed). Without the limits the page read GBs.
  {
    name: 'endless-body',
    query: 'watch=0',
    // An answer came (it was cut), so not a network failure.
    says: /The response could not be read[\s\S]*the answer was cut at 134217728 bytes, the most the explorer reads of one answer/,
    atMost: 134217728 + 64 * 1048576,
  },
  {
    name: 'endless-json-line',
    query: 'watch=1',
    says: /event 1 at byte 0: expected at most 16777216 bytes, found more than \d+ bytes with no end in sight/,
    perRequest: true,
    atMost: 16777216 + 64 * 1048576,
  },
  {
    name: 'huge-protobuf-frame',
    query: 'watch=1&as=protobuf',
    says: /event 1 at byte 0: expected at most 16777216 bytes, found 1073741824 bytes announced by its length prefix/,
    perRequest: true,
    atMost: 64 * 1048576,
  },
];

const outcomes = [];

function hostileUrl() {
  const url = process.env.EXPLORER_HOSTILE_URL;
  if (!url) throw new Error('EXPLORER_HOSTILE_URL is not set: run the end-to-end tests through scripts/test or scripts/dev-e2e');
  return url;
}

/** What the server reports of a case: its requests, the bytes it wrote, the connections open. */
async function stats(name) {
  const answer = await (await fetch(`${hostileUrl()}/hostile/stats`)).json();
  return answer.stats[name] || { requests: 0, bytes: 0, open: 0 };
}

test.afterAll(() => {
  const passed = outcomes.filter((o) => o.ok).length;
  console.log(`hostile corpus: ${outcomes.length} cases, ${passed} handled, ${outcomes.length - passed} not`);
  for (const o of outcomes) console.log(`  ${o.ok ? 'handled' : 'FAILED '} ${o.name}: ${o.detail}`);
});

for (const hostile of CASES) {
  test(`hostile server: ${hostile.name} gives a clear error and the app keeps working`, async ({ page }) => {
    const outcome = { name: hostile.name, ok: false, detail: 'did not finish' };
    outcomes.push(outcome);
    const problems = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (/panicked/.test(m.text())) problems.push(`console: ${m.text().slice(0, 300)}`);
    });
    const before = await stats(hostile.name);
    const base = `/h/${hostile.name}`;
    await page.goto(`${hostileUrl()}/explorer/?api-base=${base}&group=&version=v1&resource=configmaps&namespace=default&${hostile.query}`);
    // The page names the server it talks to, and what was wrong with the answer.
    await expect(page.getByText(`${new URL(hostileUrl()).origin}${base}`, { exact: true })).toBeVisible();
    // A list's failure is an alert; a watch's is the live view's "Last problem" while it retries.
    const alert = hostile.query.includes('watch=1')
      ? page.getByTestId('live-problem').filter({ hasText: hostile.says })
      : page.getByRole('alert').filter({ hasText: hostile.says });
    await expect(alert).toBeVisible();
    let said = (await alert.innerText()).replace(/\s+/g, ' ').trim();
    await saveScreen(page, `hostile-${hostile.name}`);
    if (hostile.atMost) {
      // Memory bounded: the page stopped reading, and hung up, within the limit.
      await expect.poll(async () => (await stats(hostile.name)).open, { timeout: 15000 }).toBe(0);
      const after = await stats(hostile.name);
      const [bytes, requests] = [after.bytes - before.bytes, after.requests - before.requests];
      // A watch is tried again (with a growing backoff): each attempt is cut at the limit.
      expect(hostile.perRequest ? bytes / requests : bytes).toBeLessThanOrEqual(hostile.atMost);
      said += ` [server wrote ${bytes} bytes in ${requests} request(s) before the page closed]`;
    }
    // Nothing the server sent ran: the HTML of a message is text, not elements.
    expect(await page.evaluate(() => window.__hostile)).toBeUndefined();
    await expect(page.locator('main img[src="x"], main script:text("__hostile")')).toHaveCount(0);
    // The rest of the app works: the namespaces, through the same server, are listed.
    await page.getByRole('navigation', { name: 'Resource types' }).getByRole('button', { name: /^namespaces/ }).click();
    // (As a Table, rows; as protobuf, the decoded NamespaceList.)
    const listed = page.getByTestId('grid-row').first().or(page.getByTestId('response-kind').filter({ hasText: 'NamespaceList' }));
    await expect(listed).toBeVisible();
    expect(problems).toEqual([]);
    outcome.ok = true;
    outcome.detail = said.length > 160 ? `…${said.slice(-160)}` : said;
  });
}

// A write's answer with a Warning header holding control characters (hostile-server.js's
// `warning-controls`): the warning is shown as text, every control character written out as its
// code (\u{1b} for ESC), nothing interpreted.
test('hostile server: warning-controls shows a Warning with its control characters made visible', async ({ page }) => {
  const outcome = { name: 'warning-controls', ok: false, detail: 'did not finish' };
  outcomes.push(outcome);
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (/panicked/.test(m.text())) problems.push(`console: ${m.text().slice(0, 300)}`);
  });
  // A ConfigMap of `default` to write to, made through the server's pass-through (not /h/).
  const made = await fetch(`${hostileUrl()}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hostile-warning' }, data: { k: 'v' } }),
  });
  expect([201, 409]).toContain(made.status);
  const before = await stats('warning-controls');
  await page.goto(`${hostileUrl()}/explorer/?api-base=/h/warning-controls&group=&version=v1&resource=configmaps&namespace=default&name=hostile-warning`);
  await expect(page.getByTestId('object-title')).toHaveText('ConfigMap hostile-warning');
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  const editor = page.getByRole('textbox', { name: 'Object editor' });
  await expect(editor).toHaveValue(/kind: ConfigMap/);
  await editor.fill((await editor.inputValue()).replace(/^ {2}k: v$/m, '  k: w'));
  await page.getByRole('button', { name: 'Dry run' }).click();
  await expect(page.getByTestId('write-status')).toContainText('HTTP 200');
  const warnings = page.getByTestId('write-warnings');
  await expect(warnings).toContainText(String.raw`\u{1b}[31mdeprecated\u{1b}[0m\u{7} field\u{8}\u{8} \u{7f}\u{9b}2J\u{9}end`);
  const shown = await warnings.locator('li').first().innerText();
  // No control character reached the page's text.
  expect([...shown].filter((c) => /[\u0000-\u001f\u007f-\u009f]/.test(c))).toEqual([]);
  expect((await stats('warning-controls')).requests - before.requests).toBe(1);
  await saveScreen(page, 'hostile-warning-controls');
  expect(problems).toEqual([]);
  outcome.ok = true;
  outcome.detail = shown;
});
