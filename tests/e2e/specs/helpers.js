// Shared by the specs: where screenshots go, and the kube-sim URL for checking what the page shows.
const path = require('node:path');

const SCREENS = path.join(__dirname, '..', 'artifacts', 'screens');

/** Saves a full-page screenshot of the current screen under artifacts/screens/NAME.png. */
async function saveScreen(page, name) {
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: true });
}

/** The kube-sim origin behind the explorer (for asking the server directly). */
function simUrl() {
  const url = process.env.KUBE_SIM_URL;
  if (!url) throw new Error('KUBE_SIM_URL is not set: run the end-to-end tests through scripts/test');
  return url;
}

module.exports = { saveScreen, simUrl };
