// A terminal in a pod's container (exec and attach over a WebSocket, xterm.js loaded on demand):
// a shell runs echo and env, follows the window's size (stty size), and `exit 3` shows exit code
// 3; reconnect, attach, the URL and kubectl line shown; read-only warns without blocking; the
// access rules disable it with the reason. The page is served by `trunk serve`, whose proxy
// cannot carry a WebSocket's subprotocol (Chromium then fails the handshake), so the page talks
// to kube-sim directly through the `api-base` parameter; kube-sim answers CORS for local origins,
// and a WebSocket needs none. The real kubectl proxy is terminal-proxy.spec.js's.
const { test, expect } = require('@playwright/test');
const AxeBuilder = require('@axe-core/playwright').default;
const { saveScreen, simUrl, asUser, webPod } = require('./helpers');

/** Opens the pod's screen (with QUERY's extra parameters) and its terminal at SUBRESOURCE. */
async function openTerminal(page, name, query = '', subresource = 'exec') {
  await page.goto(`./?group=&version=v1&resource=pods&namespace=demo&name=${name}${query}`);
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${name}`);
  await page.getByRole('region', { name: 'Subresources' }).getByRole('button', { name: subresource, exact: true }).click();
  const terminal = page.getByTestId('terminal');
  await expect(terminal.locator('.xterm-rows')).toBeAttached();
  return terminal;
}

/** The emulator's text, one line a row, trailing blanks dropped. */
async function screenText(terminal) {
  return (await terminal.locator('.xterm-rows').innerText()).replace(/\u00a0/g, ' ').split('\n').map((l) => l.trimEnd()).join('\n');
}

/** Types LINE and Enter into the emulator. */
async function typeLine(page, terminal, line) {
  await terminal.getByTestId('terminal-screen').click();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

/** Scrolls the emulator back with the mouse wheel, as a person would (a few lines a turn; typing
 * scrolls it down again), until its text matches PATTERN. */
async function scrollBackTo(page, terminal, pattern) {
  await terminal.getByTestId('terminal-screen').hover();
  await expect
    .poll(async () => {
      await page.mouse.wheel(0, -300);
      return screenText(terminal);
    })
    .toMatch(pattern);
}

/** The `ROWS COLS` that `stty size` printed last. */
async function sttySize(page, terminal) {
  const before = (await screenText(terminal)).match(/^\d+ \d+$/gm) || [];
  await typeLine(page, terminal, 'stty size');
  await expect.poll(async () => ((await screenText(terminal)).match(/^\d+ \d+$/gm) || []).length).toBe(before.length + 1);
  const sizes = (await screenText(terminal)).match(/^\d+ \d+$/gm);
  return sizes[sizes.length - 1].split(' ').map(Number);
}

test('a shell runs echo and env, follows the window size, and exit 3 shows exit code 3', async ({ page, request }) => {
  const name = await webPod(request);
  const loaded = [];
  page.on('request', (r) => loaded.push(new URL(r.url()).pathname));
  await page.goto(`./?api-base=${encodeURIComponent(simUrl())}`);
  await expect(page.getByTestId('cluster-version')).not.toHaveText('connecting…');
  expect(loaded.filter((p) => /terminal\//.test(p)), 'xterm.js is not part of the page load').toEqual([]);

  const terminal = await openTerminal(page, name, `&api-base=${encodeURIComponent(simUrl())}`);
  expect(loaded.some((p) => p.endsWith('/terminal/xterm.mjs'))).toBe(true);
  const url = `${simUrl().replace(/^http/, 'ws')}/api/v1/namespaces/demo/pods/${name}/exec?command=sh&container=web&stdin=true&stdout=true&stderr=true&tty=true`;
  await expect(terminal.getByTestId('terminal-url')).toHaveText(url);
  await expect(terminal.getByTestId('terminal-protocols')).toHaveText('v5.channel.k8s.io, v4.channel.k8s.io');
  await expect(terminal.getByTestId('terminal-kubectl')).toHaveText(`kubectl exec -it -n demo ${name} -c web -- sh`);
  await expect(terminal.getByTestId('terminal-status')).toHaveText('Not connected.');

  await terminal.getByTestId('terminal-connect').click();
  await expect(terminal.getByTestId('terminal-status')).toHaveText('Connected, speaking v5.channel.k8s.io.');
  await expect.poll(() => screenText(terminal)).toMatch(/^\/ #$/m);
  await typeLine(page, terminal, 'echo hello from the explorer');
  await expect.poll(() => screenText(terminal)).toMatch(/^hello from the explorer$/m);
  // env prints more lines than the screen has rows: its last line shows, its first ones scrolled off.
  await typeLine(page, terminal, 'env');
  await expect.poll(() => screenText(terminal)).toMatch(/^HOME=\/root$/m);
  // Every row is inside the emulator's box: the last one (the prompt) is not cut off.
  const drawn = await terminal.locator('.xterm-rows').boundingBox();
  const box = await terminal.getByTestId('terminal-screen').boundingBox();
  expect(drawn.y + drawn.height).toBeLessThanOrEqual(box.y + box.height);
  await scrollBackTo(page, terminal, /^TERM=xterm$/m);
  expect(await screenText(terminal)).toMatch(/^LOG_LEVEL=info$/m);

  // The window's size reaches the server: the emulator refits and sends a resize on channel 4.
  const [rows, cols] = await sttySize(page, terminal);
  expect(rows).toBeGreaterThan(5);
  expect(cols).toBeGreaterThan(40);
  await page.setViewportSize({ width: 900, height: 720 });
  await expect.poll(async () => (await sttySize(page, terminal))[1]).toBeLessThan(cols);
  await saveScreen(page, 'terminal-shell');

  await typeLine(page, terminal, 'exit 3');
  await expect(terminal.getByTestId('terminal-status')).toHaveText('The process exited with code 3.');
  await expect(terminal.getByTestId('terminal-connect')).toHaveText('Reconnect');
  await saveScreen(page, 'terminal-exit-3');

  // Reconnect: a new session (and a fresh screen), then Disconnect.
  await terminal.getByTestId('terminal-connect').click();
  await expect(terminal.getByTestId('terminal-status')).toHaveText('Connected, speaking v5.channel.k8s.io.');
  await typeLine(page, terminal, 'echo again');
  await expect.poll(() => screenText(terminal)).toMatch(/^again$/m);
  await expect.poll(() => screenText(terminal)).not.toMatch(/hello from the explorer/);
  await terminal.getByTestId('terminal-disconnect').click();
  await expect(terminal.getByTestId('terminal-status')).toHaveText('Disconnected.');

  const axe = await new AxeBuilder({ page }).include('[data-testid="terminal"]').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
});

test('a command of its own, attach to the running process, and a container error told apart', async ({ page, request }) => {
  const name = await webPod(request);
  const api = `&api-base=${encodeURIComponent(simUrl())}`;
  const terminal = await openTerminal(page, name, api);
  await terminal.getByTestId('terminal-command').fill(`sh -c 'echo "one two"; exit 7'`);
  await expect(terminal.getByTestId('terminal-kubectl')).toHaveText(`kubectl exec -it -n demo ${name} -c web -- sh -c 'echo "one two"; exit 7'`);
  await terminal.getByTestId('terminal-connect').click();
  await expect(terminal.getByTestId('terminal-status')).toHaveText('The process exited with code 7.');
  await expect.poll(() => screenText(terminal)).toMatch(/^one two$/m);
  // An unclosed quote is the form's error; nothing can be sent.
  await terminal.getByTestId('terminal-command').fill(`sh -c 'echo`);
  await expect(terminal.getByRole('alert')).toHaveText('the quote \' is not closed');
  await expect(terminal.getByTestId('terminal-connect')).toBeDisabled();
  // A program the container does not have: the runtime's failure, no exit code.
  await terminal.getByTestId('terminal-command').fill('vim');
  await terminal.getByTestId('terminal-connect').click();
  await expect(terminal.getByTestId('terminal-status')).toContainText('executable file not found in $PATH');

  await terminal.getByTestId('terminal-mode').selectOption('attach');
  await expect(terminal.getByTestId('terminal-command')).toHaveCount(0);
  await expect(terminal.getByTestId('terminal-url')).toContainText(`/pods/${name}/attach?container=web&stdin=true`);
  await expect(terminal.getByTestId('terminal-kubectl')).toHaveText(`kubectl attach -it -n demo ${name} -c web`);
  await terminal.getByTestId('terminal-connect').click();
  await expect(terminal.getByTestId('terminal-status')).toHaveText('Connected, speaking v5.channel.k8s.io.');
  // attach streams the log lines the container writes from now on.
  await expect.poll(() => screenText(terminal), { timeout: 20_000 }).toMatch(/\S/);
  await saveScreen(page, 'terminal-attach');
  await terminal.getByTestId('terminal-disconnect').click();
  await expect(terminal.getByTestId('terminal-status')).toHaveText('Disconnected.');
});

test('read-only says a shell can change the container and does not block it; the access rules do', async ({ page, request }) => {
  const name = await webPod(request);
  const terminal = await openTerminal(page, name, `&read-only=true&api-base=${encodeURIComponent(simUrl())}`);
  await expect(terminal.getByTestId('terminal-read-only')).toHaveText(/Read-only mode does not block a shell/);
  await terminal.getByTestId('terminal-connect').click();
  await expect(terminal.getByTestId('terminal-status')).toHaveText('Connected, speaking v5.channel.k8s.io.');
  await typeLine(page, terminal, 'exit');
  await expect(terminal.getByTestId('terminal-status')).toHaveText('The process exited with code 0.');

  // The viewer may not create pods/exec: the button is disabled, with the reason.
  const viewer = await page.context().newPage();
  await asUser(viewer, 'viewer');
  await viewer.goto(`./?group=&version=v1&resource=pods&namespace=demo&name=${name}`);
  const subresources = viewer.getByRole('region', { name: 'Subresources' });
  await expect(subresources.getByRole('button', { name: 'exec', exact: true })).toBeDisabled();
  await expect(subresources.getByRole('button', { name: 'exec', exact: true })).toHaveAttribute('title', /create pods\/exec/);
  await expect(subresources).toContainText(`kubectl auth can-i create pods/${name} --subresource=exec -n demo`);
  await saveScreen(viewer, 'terminal-viewer-refused');
  await viewer.close();
});
