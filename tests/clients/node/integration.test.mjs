// @kubernetes/client-node 2.0.0 against kube-sim, test for test after the client's own
// integration suite (`src/test/integration` of kubernetes-client/javascript at tag 2.0.0: five
// tests run by its index.ts). That suite is in no registry package (the npm tarball holds `dist/`
// built from `src/` without `src/test`), so this file, written for this project, drives the
// pinned client from npm through each of those tests' steps and checks what each checks, one
// test here per test there, under the same names (docs/clients.md). Tests that need what only a
// real image does are listed in tests/clients/skip.tsv and skipped with the reason.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AppsV1Api,
  CoreV1Api,
  Cp,
  KubeConfig,
  ListWatch,
  PatchStrategy,
  PortForward,
  Watch,
  setHeaderOptions,
} from '@kubernetes/client-node';

const skips = new Map(
  fs
    .readFileSync(process.env.CLIENTS_SKIP_FILE, 'utf8')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => line.split('\t'))
    .filter(([suite]) => suite === process.env.CLIENTS_SUITE)
    .map(([, id, reason]) => [id, reason]),
);
const defined = new Set();

/** A test of this suite, skipped with its reason when the skip list names it. */
function check(name, body) {
  defined.add(name);
  const reason = skips.get(name);
  if (reason !== undefined) console.log(`SKIP ${name}: ${reason}`);
  test(name, { skip: reason, timeout: 120_000 }, body);
}

function config() {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
}

/** NAME-xxxxx, random, as the suite names what it creates. */
const fresh = (name) => `${name}-${Math.random().toString(36).slice(2, 8)}`;

/** Resolves when `ok` first holds, or fails after `ms` naming `what`. */
async function until(what, ms, ok) {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(200);
  }
}

const namespace = 'default';

check('patchNamespace', async () => {
  const core = config().makeApiClient(CoreV1Api);
  const name = fresh('patch-ns');
  await core.createNamespace({ body: { metadata: { name, labels: { initialLabel: 'initialValue' } } } });
  const made = await core.readNamespace({ name });
  assert.equal(made.metadata?.name, name);
  assert.equal(made.metadata?.labels?.initialLabel, 'initialValue');
  const replaceLabels = [{ op: 'replace', path: '/metadata/labels', value: { foo: 'bar' } }];
  await core.patchNamespace({ name, body: replaceLabels }, setHeaderOptions('Content-Type', PatchStrategy.JsonPatch));
  const patched = await core.readNamespace({ name });
  assert.equal(patched.metadata?.labels?.foo, 'bar');
  assert.equal(patched.metadata?.labels?.initialLabel, undefined);
});

check('cpFromPod', async () => {
  const kc = config();
  const core = kc.makeApiClient(CoreV1Api);
  const name = fresh('cp-test-pod');
  const script = 'echo "test content" > /tmp/test.txt && sleep 3600';
  const container = { name: 'test-container', image: 'busybox', command: ['sh', '-c', script] };
  await core.createNamespacedPod({ namespace, body: { metadata: { name }, spec: { containers: [container], restartPolicy: 'Never' } } });
  const into = fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-cp-test-'));
  try {
    await until('the pod to run', 30_000, async () => (await core.readNamespacedPod({ name, namespace })).status?.phase === 'Running');
    new Cp(kc).cpFromPod(namespace, name, 'test-container', 'test.txt', into, '/tmp');
    const copied = path.join(into, 'test.txt');
    await until('the copied file', 10_000, () => fs.existsSync(copied));
    assert.equal(fs.readFileSync(copied, 'utf8').trim(), 'test content');
  } finally {
    await core.deleteNamespacedPod({ name, namespace });
    fs.rmSync(into, { recursive: true, force: true });
  }
});

/** A Deployment of two busybox pods answering "Hello World" on 8080 with nc; waits for them. */
async function helloDeployment(kc, app) {
  const apps = kc.makeApiClient(AppsV1Api);
  const serve = 'while true; do echo -e "HTTP/1.1 200 OK\\r\\nContent-Length: 13\\r\\n\\r\\nHello World\\n" | nc -l -p 8080 || true; done';
  const container = { name: 'test-server', image: 'busybox', command: ['sh', '-c', serve], ports: [{ containerPort: 8080 }] };
  const name = `${app}-deployment`;
  await apps.createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name, namespace },
      spec: { replicas: 2, selector: { matchLabels: { app } }, template: { metadata: { labels: { app } }, spec: { containers: [container] } } },
    },
  });
  await until('the deployment to be ready', 60_000, async () => {
    const d = await apps.readNamespacedDeployment({ name, namespace });
    return (d.status?.readyReplicas ?? 0) > 0 && d.status?.readyReplicas === d.spec?.replicas;
  });
  return name;
}

async function service(kc, app, name) {
  const spec = { selector: { app }, ports: [{ port: 8080, targetPort: 8080, protocol: 'TCP' }], type: 'ClusterIP' };
  await kc.makeApiClient(CoreV1Api).createNamespacedService({ namespace, body: { metadata: { name, namespace }, spec } });
}

/** Listens on a free local port, forwarding each connection with `forward(socket)`; a GET
 * through it must answer Hello World (five tries, as the suite makes). */
async function helloThrough(forward) {
  const server = net.createServer((socket) => forward(socket).catch(() => socket.destroy()));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      const answer = await new Promise((resolve) => {
        const socket = net.createConnection({ port, host: '127.0.0.1' });
        let data = '';
        const timer = setTimeout(() => socket.destroy(), 5000);
        socket.on('data', (chunk) => (data += chunk));
        socket.on('close', () => (clearTimeout(timer), resolve(data)));
        socket.on('error', () => {});
        socket.write('GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
      });
      if (answer.includes('Hello World')) return true;
      await sleep(1000);
    }
    return false;
  } finally {
    server.close();
  }
}

check('portForwardIntegration', async () => {
  const kc = config();
  const forward = new PortForward(kc);
  const apps = kc.makeApiClient(AppsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  // To a deployment.
  const viaDeployment = fresh('pf-dp-test');
  const deployment = await helloDeployment(kc, viaDeployment);
  assert.ok(await helloThrough((s) => forward.portForwardDeployment(namespace, deployment, [8080], s, null, s)));
  await apps.deleteNamespacedDeployment({ name: deployment, namespace });
  // To a service.
  const viaService = fresh('pf-svc-test');
  const second = await helloDeployment(kc, viaService);
  await service(kc, viaService, `${viaService}-service`);
  assert.ok(await helloThrough((s) => forward.portForwardService(namespace, `${viaService}-service`, [8080], s, null, s)));
  await core.deleteNamespacedService({ name: `${viaService}-service`, namespace });
  await apps.deleteNamespacedDeployment({ name: second, namespace });
  // To a service whose selector matches no pod: an error.
  const bad = `${fresh('pf-test')}-bad-service`;
  await service(kc, 'non-existent-app', bad);
  try {
    const socket = new net.Socket();
    await assert.rejects(forward.portForwardService(namespace, bad, [8080], socket, null, socket));
  } finally {
    await core.deleteNamespacedService({ name: bad, namespace });
  }
});

check('watchPods', async () => {
  const kc = config();
  const core = kc.makeApiClient(CoreV1Api);
  const label = fresh('run');
  const events = [];
  const watching = await new Watch(kc).watch(
    `/api/v1/namespaces/${namespace}/pods`,
    { labelSelector: `watch-test=${label}` },
    (type, pod) => events.push(`${type} ${pod.metadata?.name}`),
    () => {},
  );
  const name = fresh('watch-test-pod');
  try {
    const container = { name: 'test', image: 'busybox', command: ['sleep', '3600'] };
    const body = { metadata: { name, labels: { 'watch-test': label } }, spec: { containers: [container], restartPolicy: 'Never' } };
    await core.createNamespacedPod({ namespace, body });
    await until('ADDED', 15_000, () => events.includes(`ADDED ${name}`));
    await core.deleteNamespacedPod({ name, namespace });
    await until('DELETED', 15_000, () => events.includes(`DELETED ${name}`));
  } finally {
    watching.abort();
    await core.deleteNamespacedPod({ name, namespace }).catch(() => {});
  }
});

check('informerReconnect', async () => {
  const kc = config();
  const core = kc.makeApiClient(CoreV1Api);
  const label = fresh('run');
  const labelSelector = `informer-test=${label}`;
  const list = () => core.listNamespacedConfigMap({ namespace, labelSelector });
  const informer = new ListWatch(`/api/v1/namespaces/${namespace}/configmaps`, new Watch(kc), list, false, labelSelector);
  const added = [];
  let connects = 0;
  let errors = 0;
  informer.on('add', (cm) => added.push(cm.metadata?.name));
  informer.on('connect', () => connects++);
  informer.on('error', () => errors++);
  const [first, second] = [fresh('cm1'), fresh('cm2')];
  const map = (name, value) => ({ metadata: { name, labels: { 'informer-test': label } }, data: { key: value } });
  try {
    await informer.start();
    await core.createNamespacedConfigMap({ namespace, body: map(first, 'value1') });
    await until('the add of the first map', 15_000, () => added.includes(first));
    // The client ends each watch after 30 s and watches again from the last resourceVersion.
    await until('a reconnect', 45_000, () => connects > 1);
    await core.createNamespacedConfigMap({ namespace, body: map(second, 'value2') });
    await until('the add of the second map', 15_000, () => added.includes(second));
    assert.equal(added.filter((n) => n === first).length, 1, `the first map added once: ${added}`);
    assert.equal(errors, 0);
  } finally {
    await informer.stop();
    for (const name of [first, second]) await core.deleteNamespacedConfigMap({ name, namespace }).catch(() => {});
  }
});

const stale = [...skips.keys()].filter((id) => !defined.has(id));
if (stale.length) throw new Error(`the skip list names tests that do not exist: ${stale.join(', ')}`);
