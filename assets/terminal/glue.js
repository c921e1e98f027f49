// The explorer's glue to xterm.js (src/ui/terminal/xterm.rs loads this module on demand with
// import(), from the bundle's terminal/ folder): opens a terminal emulator in an element, fits it
// to the element's size whenever that changes (the window or the panel), and reports what the
// keyboard typed and the size in characters. No protocol here: the wasm side frames and sends.
import { Terminal } from './xterm.mjs';
import { FitAddon } from './addon-fit.mjs';

let styled = false;

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
    },
  };
}
