// Loads the explorer's wasm from its bundle and mounts it into #mount with a config object. This
// page's query may set `readOnly`, `theme`, `accent`, and `resource`/`namespace` for the route.
const config = await (await fetch('config.json')).json();
const params = new URLSearchParams(location.search);
const status = document.getElementById('status');
const selected = document.getElementById('selected');

for (const href of config.assets.css) {
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  document.head.append(link);
}
// A bundle on another origin must be served with CORS for import() (kubectl proxy --www sends
// none): the page says so rather than staying at "loading".
let explorer;
try {
  explorer = await import(config.assets.js);
  await explorer.default({ module_or_path: config.assets.wasm });
} catch (error) {
  status.textContent = `loading failed: ${error.message}`;
  throw error;
}

const mountConfig = {
  apiBase: config.apiUrl,
  readOnly: params.get('readOnly') === '1',
  route: { group: '', version: 'v1', resource: params.get('resource') || 'pods', namespace: params.get('namespace') || 'demo' },
  onSelect: (message) => {
    const where = message.namespace ? `${message.namespace}/` : '';
    selected.textContent = `${message.resource} ${where}${message.name} uid=${message.uid}`;
  },
};
if (params.has('theme')) mountConfig.theme = params.get('theme');
if (params.has('accent')) mountConfig.accent = params.get('accent');
let handle;
try {
  handle = explorer.mount(document.getElementById('mount'), mountConfig);
  status.textContent = 'mounted';
} catch (error) {
  status.textContent = `mount failed: ${error.message}`;
}
window.explorerHandle = handle;

document.getElementById('navigate').addEventListener('submit', (event) => {
  event.preventDefault();
  const route = {};
  for (const [key, value] of new FormData(event.target)) if (value !== '' || key === 'group') route[key] = value;
  try {
    handle.navigate(route);
  } catch (error) {
    status.textContent = `navigate failed: ${error.message}`;
  }
});
document.getElementById('unmount').addEventListener('click', () => {
  handle.unmount();
  status.textContent = handle.mounted ? 'still mounted' : 'unmounted';
});
