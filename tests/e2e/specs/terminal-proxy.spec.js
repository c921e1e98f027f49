// Only in the "kubectl-proxy" project: the terminal behind the real `kubectl proxy --www`. With
// its default --reject-paths the proxy refuses exec and attach (a plain-text 403), and the
// explorer says why and which flag allows it; behind a proxy started with --reject-paths='^$'
// (scripts/test, scripts/dev-e2e: EXPLORER_PROXY_EXEC_URL) a shell runs.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl, webPod } = require('./helpers');

async function openTerminal(page, base, name) {
  await page.goto(new URL(`./?group=&version=v1&resource=pods&namespace=demo&name=${name}`, base).href);
  await expect(page.getByTestId('object-title')).toHaveText(`Pod ${name}`);
  await page.getByRole('region', { name: 'Subresources' }).getByRole('button', { name: 'exec', exact: true }).click();
  const terminal = page.getByTestId('terminal');
  await expect(terminal.locator('.xterm-rows')).toBeAttached();
  return terminal;
}

const screenText = async (terminal) => (await terminal.locator('.xterm-rows').innerText()).replace(/\u00a0/g, ' ').split('\n').map((l) => l.trimEnd()).join('\n');

test('the default kubectl proxy refuses exec: the explorer says why and names the flag', async ({ page, request, baseURL }) => {
  const name = await webPod(request);
  const terminal = await openTerminal(page, baseURL, name);
  await expect(terminal.getByTestId('terminal-url')).toHaveText(
    new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/api/v1/namespaces/demo/pods/${name}/exec\\?command=sh&`),
  );
  await terminal.getByTestId('terminal-connect').click();
  const status = terminal.getByTestId('terminal-status');
  await expect(status).toContainText('kubectl proxy refused the request (403 Forbidden, as text)');
  await expect(status).toContainText('CORS does not cover WebSockets');
  await expect(terminal.getByTestId('terminal-proxy-flag')).toHaveText(/--reject-paths='\^\$'/);
  await saveScreen(page, 'terminal-proxy-refused');
});

test("behind a kubectl proxy with --reject-paths='^$' a shell runs and exit 3 shows exit code 3", async ({ page, request }) => {
  const base = test.info().project.metadata.execProxyUrl;
  expect(base, 'EXPLORER_PROXY_EXEC_URL: a kubectl proxy --www with --reject-paths relaxed').toBeTruthy();
  const name = await webPod(request);
  const terminal = await openTerminal(page, base, name);
  await terminal.getByTestId('terminal-connect').click();
  await expect(terminal.getByTestId('terminal-status')).toHaveText('Connected, speaking v5.channel.k8s.io.');
  await terminal.getByTestId('terminal-screen').click();
  await page.keyboard.type('echo through kubectl proxy');
  await page.keyboard.press('Enter');
  await expect.poll(() => screenText(terminal)).toMatch(/^through kubectl proxy$/m);
  await page.keyboard.type('env');
  await page.keyboard.press('Enter');
  await expect.poll(() => screenText(terminal)).toMatch(/^HOME=\/root$/m);
  // Its first lines scrolled off the screen: the wheel brings them back.
  await terminal.getByTestId('terminal-screen').hover();
  await expect
    .poll(async () => {
      await page.mouse.wheel(0, -300);
      return screenText(terminal);
    })
    .toMatch(/^LOG_LEVEL=info$/m);
  await page.keyboard.type('exit 3');
  await page.keyboard.press('Enter');
  await expect(terminal.getByTestId('terminal-status')).toHaveText('The process exited with code 3.');
  await saveScreen(page, 'terminal-proxy-shell');
});
