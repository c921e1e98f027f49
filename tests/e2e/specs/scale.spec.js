// Scale from an object's screen, as `kubectl scale` does it: the `scale` subresource read, a dry
// run that changes nothing, then the merge patch of spec.replicas that the server applies; a form
// that is not a whole number is refused before anything is sent.
const { test, expect } = require('@playwright/test');
const { saveScreen, simUrl } = require('./helpers');

const NS = 'demo';

test('a Deployment is scaled from its screen: facts read, a dry run that changes nothing, then the patch', async ({ page, request }) => {
  const name = `scale-e2e-${Date.now().toString(36)}`;
  const base = `${simUrl()}/apis/apps/v1/namespaces/${NS}/deployments`;
  const created = await request.post(base, {
    data: {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: NS },
      spec: {
        replicas: 1, selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
      },
    },
  });
  expect(created.status()).toBe(201);
  const sent = [];
  page.on('request', (r) => {
    if (r.url().includes(`/deployments/${name}/scale`)) sent.push({ method: r.method(), url: r.url(), body: r.postData(), type: r.headers()['content-type'] });
  });
  try {
    await page.goto(`./?group=apps&version=v1&resource=deployments&namespace=${NS}&name=${name}`);
    await page.getByRole('button', { name: 'Scale…' }).click();
    const panel = page.getByRole('region', { name: 'Scale', exact: true });
    // The facts are the server's Scale.
    await expect
      .poll(async () => {
        const scale = await (await request.get(`${base}/${name}/scale`)).json();
        const shown = (await panel.getByTestId('scale-current').textContent()).trim();
        const expected = `spec.replicas ${scale.spec.replicas}, status.replicas ${scale.status.replicas ?? 'unset'}, selector ${scale.status.selector}`;
        return shown === expected ? 'equal' : `page ${shown} / server ${expected}`;
      })
      .toBe('equal');
    const replicas = panel.getByLabel('Replicas');
    await expect(replicas).toHaveValue('1');

    // Not a number: said, and nothing can be sent.
    await replicas.fill('three');
    await expect(panel.getByRole('alert')).toHaveText('replicas: expected a whole number from 0 up, found "three"');
    await expect(panel.getByRole('button', { name: 'Scale', exact: true })).toBeDisabled();
    await expect(panel.getByRole('button', { name: 'Dry run' })).toBeDisabled();

    // A dry run: the server would set 3, and stores nothing.
    await replicas.fill('3');
    await panel.getByRole('button', { name: 'Dry run' }).click();
    await expect(panel.getByTestId('scale-state')).toHaveText('Dry run: HTTP 200 — the server would set replicas to 3; nothing changed.');
    expect((await (await request.get(`${base}/${name}`)).json()).spec.replicas).toBe(1);

    // Scaled: the server now wants 3, and the panel reads the Scale again.
    await panel.getByRole('button', { name: 'Scale', exact: true }).click();
    await expect(panel.getByTestId('scale-state')).toHaveText('Scaled: spec.replicas is 3 (HTTP 200).');
    expect((await (await request.get(`${base}/${name}`)).json()).spec.replicas).toBe(3);
    await expect(panel.getByTestId('scale-current')).toContainText('spec.replicas 3,');
    // Exactly what kubectl scale sends: a merge patch of spec.replicas to the subresource.
    expect(sent.filter((r) => r.method === 'PATCH').map((r) => [r.type, r.body, new URL(r.url).searchParams.get('dryRun')])).toEqual([
      ['application/merge-patch+json', '{"spec":{"replicas":3}}', 'All'],
      ['application/merge-patch+json', '{"spec":{"replicas":3}}', null],
    ]);
    await saveScreen(page, 'scale-panel');
  } finally {
    await request.delete(`${base}/${name}`);
  }
});
