// The in-browser watch benchmark (scripts/bench-watch): the e2e settings, its own folder, and
// the time a 10,000-pod list and several timed churns take.
const base = require('./playwright.config.js');

module.exports = { ...base, testDir: './bench', testMatch: '**/*.bench.js', timeout: 15 * 60_000, reporter: [['list']] };
