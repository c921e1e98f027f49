// The explorer's glue to xterm.js (src/ui/terminal/xterm.rs loads this module on demand with
// import(), from the bundle's terminal/ folder): opens a terminal emulator in an element, fits it
// to the element's size whenever that changes (the window or the panel), and reports what the
// keyboard typed and the size in characters. No protocol here: the wasm side frames and sends.
import { Terminal } from './xterm.mjs';
import { FitAddon } from './addon-fit.mjs';

let styled = false;
let routed = false;

// xterm.js writes its theme, its scrollbar colours and its cells' dimensions as the text of
// <style> elements it adds. Under the Content-Security-Policy of docs/security.md (`style-src
// 'self'`, no 'unsafe-inline') the browser refuses that text: the rows lose their height and the
// colours their values (xterm.js issue 4445; it takes no nonce, and a static page has none to
// give). So the text of a <style> element goes instead to a constructable stylesheet of its own,
// adopted by the document (the CSSOM, which the policy allows, as the app's accent colour does),
// and the element stays empty. The app itself makes no <style> element (docs/security.md): the
// only ones are xterm's, so this is installed once, when the terminal first opens.
const sheets = new Map(); // <style> element -> { sheet, text }

function routeStyleText() {
  if (routed) return;
  routed = true;
  const node = Object.getOwnPropertyDescriptor(Node.prototype, 'textContent');
  Object.defineProperty(HTMLStyleElement.prototype, 'textContent', {
    configurable: true,
    get() {
      const routedText = sheets.get(this);
      return routedText ? routedText.text : node.get.call(this);
    },
    set(text) {
      let routedText = sheets.get(this);
      if (!routedText) {
        routedText = { sheet: new CSSStyleSheet(), text: '' };
        sheets.set(this, routedText);
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, routedText.sheet];
      }
      routedText.text = String(text ?? '');
      routedText.sheet.replaceSync(routedText.text);
    },
  });
}

// Drops the sheets of <style> elements no longer in the document (a terminal disposed).
function dropDetachedSheets() {
  const gone = new Set();
  for (const [element, routedText] of sheets) {
    if (!element.isConnected) {
      gone.add(routedText.sheet);
      sheets.delete(element);
    }
  }
  if (gone.size) document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !gone.has(s));
}

// xterm.css, once per page: a stylesheet of the bundle ('self' under the documented CSP).
function addStylesheet() {
  if (styled) return;
  styled = true;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = new URL('./xterm.css', import.meta.url).href;
  document.head.appendChild(link);
}

// Opens a terminal in `element`; `onData(text)` hears the keyboard (and pastes), `onResize(cols,
// rows)` every new size, the first one included.
export function open(element, onData, onResize) {
  addStylesheet();
  routeStyleText();
  const style = getComputedStyle(element);
  const terminal = new Terminal({
    cursorBlink: true,
    fontFamily: style.getPropertyValue('--font-mono').trim() || 'monospace',
    fontSize: 14,
    // The DOM renderer clips each row at the cell's height: at 1.0 the underscores of common
    // monospace fonts fell below it and read as spaces.
    lineHeight: 1.2,
    scrollback: 5000,
    theme: { background: style.backgroundColor, foreground: style.color, cursor: style.color },
  });
  const fit = new FitAddon();
  terminal.loadAddon(fit);
  terminal.open(element);
  terminal.onData((data) => onData(data));
  terminal.onResize(({ cols, rows }) => onResize(cols, rows));
  const refit = () => {
    // A hidden or detached element has no size: keep the last one.
    if (element.isConnected && element.clientWidth > 0) fit.fit();
  };
  const observer = new ResizeObserver(refit);
  observer.observe(element);
  refit();
  onResize(terminal.cols, terminal.rows);
  return {
    write: (bytes) => terminal.write(bytes),
    focus: () => terminal.focus(),
    reset: () => terminal.reset(),
    dispose: () => {
      observer.disconnect();
      terminal.dispose();
      dropDetachedSheets();
    },
  };
}
