#!/usr/bin/env node
// A hostile API server for tests/e2e/specs/hostile.spec.js: what a broken or malicious server could
// send. It stands in front of a kube-sim (UPSTREAM, one started with --www so that the /explorer/
// bundle comes from the same origin) and passes every request through, except under
// /h/<case>/...: there the page's API base is /h/<case>, discovery and every other path still pass
// through (the prefix taken off), and the one request the case names (the configmaps of namespace
// `default`, listed or watched) gets the hostile answer, written byte by byte on the socket (Node's
// own response object refuses most of these lies).
//
//   node tests/e2e/hostile-server.js --listen 127.0.0.1:PORT --upstream http://127.0.0.1:SIMPORT
//
// GET /hostile/stats: for each case, the requests it answered and the bytes it wrote before the
// client closed the connection, and how many are open (the spec's proof that the page cut an endless body at its limit).
// A Node script rather than a kube-sim mode: the lies are raw bytes on a socket, none of them is
// Kubernetes behaviour worth simulating, and changing it costs no Rust build.
'use strict';
const http = require('http');

const args = process.argv.slice(2);
const arg = (name) => {
  const i = args.indexOf(name);
  if (i < 0 || i + 1 >= args.length) throw new Error(`hostile-server: ${name} is required`);
  return args[i + 1];
};
const [host, port] = arg('--listen').split(':');
const upstream = new URL(arg('--upstream'));

const TARGET = '/api/v1/namespaces/default/configmaps';
const isWatch = (query) => /(^|&)watch=(1|true)(&|$)/.test(query);
const list = (path, query, method) => path === TARGET && !isWatch(query) && method === 'GET';
const watch = (path, query, method) => path === TARGET && isWatch(query) && method === 'GET';
// A write to one configmap of `default` (an update, a patch, a dry run of either).
const write = (path, query, method) => path.startsWith(`${TARGET}/`) && method !== 'GET';

const stats = {};

// head(status, headers): the status line and headers as raw bytes (a header value may hold any
// byte but CR and LF).
function head(status, reason, headers) {
  const lines = [`HTTP/1.1 ${status} ${reason}`, ...headers.map(([n, v]) => `${n}: ${v}`), 'Connection: close'];
  return Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');
}

// A whole answer with a Content-Length.
const whole = (status, reason, headers, body) => (socket, record) => {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const out = Buffer.concat([head(status, reason, [...headers, ['Content-Length', String(bytes.length)]]), bytes]);
  record(out.length);
  socket.end(out);
};

// A chunked body: `first`, then `next()` again and again, as fast as the client reads, until it
// closes the connection (each chunk's bytes counted).
const endless = (contentType, first, next) => (socket, record) => {
  const chunk = (buf) => Buffer.concat([Buffer.from(buf.length.toString(16) + '\r\n'), buf, Buffer.from('\r\n')]);
  socket.write(head(200, 'OK', [['Content-Type', contentType], ['Transfer-Encoding', 'chunked']]));
  let open = true;
  socket.on('close', () => (open = false));
  socket.on('error', () => (open = false));
  let c = chunk(first());
  const pump = () => {
    while (open) {
      record(c.length);
      if (!socket.write(c)) return socket.once('drain', pump);
      c = chunk(next());
    }
  };
  pump();
};

const json = [['Content-Type', 'application/json']];
const deep = 100000;
const filler = Buffer.alloc(64 * 1024, 'a');
const items = Buffer.from('{"metadata":{"name":"x"}},'.repeat(2048));
const htmlMessage =
  '<img src=x onerror="window.__hostile=1"><script>window.__hostile=2</script><b>admin</b> says no';

// Each case: what it lies about, the request it answers (path and query after the prefix), the
// answer, and the words the page must show about it.
const CASES = {
  'lying-content-type': {
    matches: list,
    answer: whole(200, 'OK', json, '<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>'),
  },
  'invalid-utf8': {
    matches: list,
    answer: whole(
      200,
      'OK',
      json,
      Buffer.concat([Buffer.from('{"kind":"ConfigMapList","apiVersion":"v1","items":[{"metadata":{"name":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}]}')]),
    ),
  },
  'deep-nesting': {
    matches: list,
    answer: whole(200, 'OK', json, '{"kind":"ConfigMapList","items":' + '['.repeat(deep) + ']'.repeat(deep) + '}'),
  },
  'status-html': {
    matches: list,
    answer: whole(
      403,
      'Forbidden',
      json,
      JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: htmlMessage, reason: 'Forbidden', code: 403 }),
    ),
  },
  'empty-200': { matches: list, answer: whole(200, 'OK', json, '') },
  'table-mismatch': {
    matches: list,
    answer: whole(
      200,
      'OK',
      [['Content-Type', 'application/json;as=Table;g=meta.k8s.io;v=v1']],
      JSON.stringify({
        kind: 'Table',
        apiVersion: 'meta.k8s.io/v1',
        metadata: { resourceVersion: '1' },
        columnDefinitions: [
          { name: 'Name', type: 'string', format: 'name' },
          { name: 'Data', type: 'integer', format: '' },
          { name: 'Age', type: 'string', format: '' },
        ],
        rows: [
          { cells: ['short-row'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'short-row' } } },
          { cells: ['long-row', 1, '1s', 'extra', 'more'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'long-row' } } },
        ],
      }),
    ),
  },
  // 127.0.0.2 is another origin (the page is on 127.0.0.1); /steal answers like the list asked
  // for, so a client that followed the redirect would show it as if it came from the API.
  'redirect-other-origin': {
    matches: list,
    answer: (socket, record) => {
      const out = head(302, 'Found', [['Location', `http://127.0.0.2:${port}/steal`], ['Content-Length', '0']]);
      record(out.length);
      socket.end(out);
    },
  },
  // A 307 to the same list on the same origin, outside /h/ (kube-sim's real answer, had it been
  // followed): not followed either, and said so (an API server never redirects the requests the
  // explorer sends).
  'redirect-same-origin': {
    matches: list,
    answer: (socket, record) => {
      const out = head(307, 'Temporary Redirect', [['Location', TARGET], ['Content-Length', '0']]);
      record(out.length);
      socket.end(out);
    },
  },
  // The write goes through to kube-sim; its answer comes back with a Warning header holding
  // control characters (an ANSI colour, a bell, backspaces, DEL, the C1 CSI 0x9b and a tab),
  // written as raw bytes (Node's response object refuses them).
  'warning-controls': {
    matches: write,
    answer: 'upstream',
    warning: Buffer.concat([
      Buffer.from('299 - "'),
      Buffer.from('\x1b[31mdeprecated\x1b[0m\x07 field\x08\x08 \x7f', 'latin1'),
      Buffer.from([0x9b]),
      Buffer.from('2J\tend"'),
    ]),
  },
  'endless-body': {
    matches: list,
    answer: endless('application/json', () => Buffer.from('{"kind":"ConfigMapList","apiVersion":"v1","items":['), () => items),
  },
  'endless-json-line': {
    matches: watch,
    answer: endless('application/json;stream=watch', () => Buffer.from('{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"'), () => filler),
  },
  'huge-protobuf-frame': {
    matches: watch,
    // A frame announced as 1 GiB (the 4-byte big-endian length prefix), then bytes that never make it.
    answer: endless('application/vnd.kubernetes.protobuf;stream=watch', () => Buffer.from([0x40, 0, 0, 0]), () => filler),
  },
};

// Passes the request on and writes kube-sim's answer back as raw bytes, with the case's
// `warning` header added.
function proxyWithWarning(req, socket, path, warning, record) {
  const forward = http.request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path, headers: { ...req.headers, host: upstream.host } },
    (answer) => {
      const parts = [];
      answer.on('data', (b) => parts.push(b));
      answer.on('end', () => {
        const body = Buffer.concat(parts);
        const keep = Object.entries(answer.headers).filter(([n]) => !['content-length', 'transfer-encoding', 'connection', 'warning'].includes(n));
        const top = head(answer.statusCode, answer.statusMessage, [...keep, ['Content-Length', String(body.length)]]);
        // The header as bytes: `head` writes Latin-1, and the Warning goes in before the blank line.
        const out = Buffer.concat([top.subarray(0, top.length - 2), Buffer.from('Warning: '), warning, Buffer.from('\r\n\r\n'), body]);
        record(out.length);
        socket.end(out);
      });
    },
  );
  forward.on('error', () => socket.destroy());
  req.pipe(forward);
}

function proxy(req, res, path) {
  const forward = http.request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path, headers: { ...req.headers, host: upstream.host } },
    (answer) => {
      res.writeHead(answer.statusCode, answer.statusMessage, answer.rawHeaders);
      answer.pipe(res);
    },
  );
  forward.on('error', (e) => {
    if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
    res.end(`hostile-server: upstream ${e.message}`);
  });
  res.on('close', () => forward.destroy());
  req.pipe(forward);
}

const server = http.createServer((req, res) => {
  const [path, query = ''] = req.url.split('?');
  if (path === '/hostile/stats') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ cases: Object.keys(CASES), stats }));
    return;
  }
  const m = /^\/h\/([a-z0-9-]+)(\/.*)?$/.exec(path);
  if (!m) return proxy(req, res, req.url);
  const [, name, rest = '/'] = m;
  const hostile = CASES[name];
  if (!hostile) {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    return res.end(`hostile-server: no case ${name}`);
  }
  if (!hostile.matches(rest, query, req.method)) return proxy(req, res, rest + (query ? `?${query}` : ''));
  const s = (stats[name] = stats[name] || { requests: 0, bytes: 0, open: 0 });
  s.requests += 1;
  s.open += 1;
  const socket = req.socket;
  socket.on('close', () => (s.open -= 1));
  const record = (n) => (s.bytes += n);
  if (hostile.answer === 'upstream') return proxyWithWarning(req, socket, rest + (query ? `?${query}` : ''), hostile.warning, record);
  hostile.answer(socket, record);
});
server.listen(Number(port), host, () => console.log(`hostile-server on http://${host}:${port}, upstream ${upstream.href}`));
