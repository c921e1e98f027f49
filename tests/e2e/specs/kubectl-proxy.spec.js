// Only in the "kubectl-proxy" project: what differs when the real `kubectl proxy --www` serves the
// bundle. It sends its static files without CORS headers, so a dashboard on another origin cannot
// import() the bundle for the mount API (the embed spec's two mount tests run only where the
// bundle's server sends CORS, as kube-sim --www does); the iframe works, and the example host page
// says why the mount failed instead of staying at "loading".
const { test, expect } = require('@playwright/test');
const { wwwUrl } = require('./helpers');
const { startHostServer } = require('../host/server');

test('kubectl proxy --www serves the bundle without CORS: a host on another origin cannot import it, and says so', async ({ page, request }) => {
  const html = await (await request.get(wwwUrl())).text();
  const loader = html.match(/import init, \* as bindings from '([^']+\.js)'/);
  expect(loader, 'the bundle index.html names its loader').toBeTruthy();
  const script = await request.get(new URL(loader[1], wwwUrl()).href, { headers: { Origin: 'http://127.0.0.1:9' } });
  expect(script.status()).toBe(200);
  expect(script.headers()['access-control-allow-origin']).toBeUndefined();

  const host = await startHostServer({ explorerUrl: wwwUrl(), apiUrl: new URL(wwwUrl()).origin });
  try {
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${host.origin}/mount.html`);
    await expect(page.getByTestId('host-status')).toHaveText(/^loading failed: .*(dynamically imported module|Failed to fetch)/);
    await expect(page.getByTestId('mount-target')).toBeEmpty();
    expect(errors.join('\n')).toMatch(/dynamically imported module|Failed to fetch/);
  } finally {
    await host.close();
  }
});
