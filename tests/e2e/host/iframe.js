// Embeds the explorer in an iframe and drives it with postMessage. This page's query may set
// `trusted` (the origin the explorer is told to obey; this page's own by default), `readOnly`,
// `theme` and `accent`, which are passed on in the iframe's URL.
const config = await (await fetch('config.json')).json();
const params = new URLSearchParams(location.search);
const frame = document.getElementById('explorer');
const status = document.getElementById('status');
const selected = document.getElementById('selected');

const src = new URL(config.explorerUrl);
src.searchParams.set('embed', '1');
src.searchParams.set('host-origin', params.get('trusted') || location.origin);
for (const [mine, theirs] of [['readOnly', 'read-only'], ['theme', 'theme'], ['accent', 'accent']]) {
  if (params.has(mine)) src.searchParams.set(theirs, params.get(mine));
}
for (const view of ['group', 'version', 'resource', 'namespace']) {
  if (params.has(view)) src.searchParams.set(view, params.get(view));
}
frame.src = src.href;

window.addEventListener('message', (event) => {
  // Only the explorer's frame, from the explorer's origin, is listened to.
  if (event.origin !== config.explorerOrigin || event.source !== frame.contentWindow) return;
  const message = event.data || {};
  if (message.type === 'kube-api-explorer:ready') status.textContent = 'ready';
  if (message.type === 'kube-api-explorer:selected') {
    const where = message.namespace ? `${message.namespace}/` : '';
    selected.textContent = `${message.resource} ${where}${message.name} uid=${message.uid}`;
  }
});

document.getElementById('navigate').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const message = { type: 'kube-api-explorer:navigate' };
  for (const [key, value] of form) if (value !== '' || key === 'group') message[key] = value;
  // Addressed to the explorer's origin only: if the frame navigated elsewhere, nothing is sent.
  frame.contentWindow.postMessage(message, config.explorerOrigin);
});
