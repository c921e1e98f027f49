// The example host pages' own web server (node's http module, no dependency): it serves the files
// of this folder on a loopback origin of its own, so that the explorer (served by kube-sim under
// /explorer/) is a different origin, as it is when a dashboard embeds it. /config.json tells the
// pages where the explorer and the API are, and which files the explorer's bundle has (read from
// its index.html, since a release build hashes their names).
//
// Each page is sent with the Content-Security-Policy the README recommends for hosts, so the e2e
// tests also prove that policy lets the explorer run.
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css' };

/** The JS, wasm and CSS files an explorer bundle's index.html loads, as absolute URLs. */
async function explorerAssets(explorerUrl) {
  const response = await fetch(explorerUrl);
  if (!response.ok) throw new Error(`${explorerUrl} answered ${response.status}`);
  const html = await response.text();
  const js = html.match(/import init, \* as bindings from '([^']+\.js)'/);
  const wasm = html.match(/module_or_path: '([^']+_bg\.wasm)'/);
  const css = [...html.matchAll(/<link rel="stylesheet" href="([^"]+\.css)"/g)].map((m) => m[1]);
  if (!js || !wasm || css.length === 0) throw new Error(`no loader, wasm or stylesheet found in ${explorerUrl}`);
  const absolute = (href) => new URL(href, explorerUrl).href;
  return { js: absolute(js[1]), wasm: absolute(wasm[1]), css: css.map(absolute) };
}

/** The policy a host page needs to frame the explorer or run it through the mount API. */
function hostPolicy(explorerOrigin, apiOrigin) {
  return [
    "default-src 'none'",
    `script-src 'self' ${explorerOrigin} 'wasm-unsafe-eval'`,
    `style-src 'self' ${explorerOrigin} 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='`,
    `connect-src 'self' ${explorerOrigin} ${apiOrigin}`,
    `frame-src ${explorerOrigin}`,
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/**
 * Starts a host server on a free loopback port. `explorerUrl` is the bundle's page (for example
 * http://127.0.0.1:8001/explorer/), `apiUrl` the API the mount API is pointed at.
 * Resolves to { origin, close }.
 */
async function startHostServer({ explorerUrl, apiUrl }) {
  const assets = await explorerAssets(explorerUrl);
  const explorerOrigin = new URL(explorerUrl).origin;
  const apiOrigin = new URL(apiUrl).origin;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://host');
    if (url.pathname === '/config.json') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ explorerUrl, explorerOrigin, apiUrl, assets }));
      return;
    }
    const name = path.basename(url.pathname === '/' ? 'index.html' : url.pathname);
    const file = path.join(__dirname, name);
    const type = TYPES[path.extname(name)];
    if (!type || name === 'server.js' || !fs.existsSync(file)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, {
      'Content-Type': type,
      'Content-Security-Policy': hostPolicy(explorerOrigin, apiOrigin),
      'Cache-Control': 'no-store',
    });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, assets, close: () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(resolve);
  }) };
}

/**
 * Starts a reverse proxy on a free loopback port that forwards every request to `target` (an
 * origin, such as kube-sim serving the bundle and the API) and adds `headers` to every response:
 * how a production deployment puts security headers in front of `kubectl proxy --www`. With
 * `rewriteHtml`, HTML responses are passed through it (the host edits the bundle's index.html).
 * Resolves to { origin, close }.
 */
async function startHeaderProxy({ target, headers, rewriteHtml }) {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const forwarded = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        const html = (answer.headers['content-type'] || '').startsWith('text/html');
        if (!rewriteHtml || !html) {
          res.writeHead(answer.statusCode, { ...answer.headers, ...headers });
          answer.pipe(res);
          return;
        }
        // A host that edits the bundle's index.html (a <meta> tag, a data- attribute).
        const chunks = [];
        answer.on('data', (chunk) => chunks.push(chunk));
        answer.on('end', () => {
          const body = Buffer.from(rewriteHtml(Buffer.concat(chunks).toString('utf8')));
          const { 'content-length': _, ...rest } = answer.headers;
          res.writeHead(answer.statusCode, { ...rest, ...headers, 'Content-Length': body.length });
          res.end(body);
        });
      },
    );
    forwarded.on('error', (error) => {
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`proxy: ${error.message}`);
    });
    req.pipe(forwarded);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, close: () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(resolve);
  }) };
}

module.exports = { startHostServer, startHeaderProxy, explorerAssets, hostPolicy };
