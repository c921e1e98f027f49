// Validation while typing: the editor checks the edit against the group version's OpenAPI v3
// schema before anything is sent, marks each problem at its line in the server's words, and the
// server (kube-sim, fieldValidation=Strict, dry run) then answers with those very words.
const { test, expect } = require('@playwright/test');
const { openEditor, saveScreen } = require('./helpers');

/** The 1-based line of the first line of `text` matching `pattern`. */
function lineOf(text, pattern) {
  const index = text.split('\n').findIndex((line) => pattern.test(line));
  expect(index, `a line matching ${pattern}`).toBeGreaterThanOrEqual(0);
  return index + 1;
}

/** Each problem listed under the editor: its line and its message. */
async function listedProblems(page) {
  const items = page.getByTestId('validation-problems').locator('li');
  const out = [];
  for (let i = 0; i < (await items.count()); i += 1) {
    const item = items.nth(i);
    out.push({ line: Number(await item.getAttribute('data-line')), message: await item.getByTestId('validation-message').innerText() });
  }
  return out;
}

/** The line numbers the gutter marks as having a problem. */
async function markedLines(page) {
  const marked = page.locator('.editor__line-number--problem .editor__number');
  return (await marked.allInnerTexts()).map(Number).sort((a, b) => a - b);
}

/** Sends a dry run and answers the server's Status message. */
// Sends a dry run and answers the message the page shows once it shows this request's answer: a
// second dry run's status line reads "HTTP 400" before its answer arrives (the first one's), so
// the wait is for the response, then for the server's own message on the page.
async function dryRun(page, status) {
  const answered = page.waitForResponse((r) => r.url().includes('dryRun=All') && r.request().method() !== 'GET');
  await page.getByRole('button', { name: 'Dry run' }).click();
  const response = await answered;
  expect(response.status()).toBe(status);
  const { message } = await response.json();
  await expect(page.getByTestId('write-status')).toContainText(`HTTP ${status}`);
  await expect(page.getByTestId('write-outcome').getByTestId('status-message')).toHaveText(message);
  return page.getByTestId('write-outcome').getByTestId('status-message').innerText();
}

test('a widget: an unknown field, a wrong type and a value out of range, marked while typing as the server words them', async ({ page }) => {
  await page.goto('./?group=example.com&version=v1&resource=widgets&namespace=default&name=w-03');
  const editor = await openEditor(page, 'Widget');
  const original = await editor.inputValue();
  const edited = original
    .replace(/^ {2}replicas: \d+$/m, '  replicas: 99\n  bogus: 1')
    .replace(/^ {2}color: \w+$/m, '  color: 5');
  await editor.fill(edited);
  const expected = [
    { line: lineOf(edited, /^ {2}color: 5$/), message: 'spec.color: Invalid value: "integer": spec.color in body must be of type string: "integer"' },
    { line: lineOf(edited, /^ {2}replicas: 99$/), message: 'spec.replicas: Invalid value: 99: spec.replicas in body should be less than or equal to 10' },
    { line: lineOf(edited, /^ {2}bogus: 1$/), message: 'unknown field "spec.bogus"' },
  ];
  await expect(page.getByTestId('validation-problems').locator('li')).toHaveCount(3);
  const listed = await listedProblems(page);
  expect(listed.sort((a, b) => a.line - b.line)).toEqual(expected.sort((a, b) => a.line - b.line));
  expect(await markedLines(page)).toEqual(expected.map((p) => p.line).sort((a, b) => a - b));
  // Going to a problem puts the cursor on its line.
  const bogus = expected.find((p) => p.message.startsWith('unknown'));
  await page.getByTestId('validation-problems').getByRole('button', { name: `Line ${bogus.line}`, exact: true }).click();
  await expect(editor).toBeFocused();
  const selected = await editor.evaluate((area) => area.value.slice(area.selectionStart, area.selectionEnd));
  expect(selected).toBe('  bogus: 1');
  await saveScreen(page, 'validate-widget-typing');

  // Strict refuses the unknown field first (400), with the words shown while typing.
  await expect(page.getByTestId('preview-url')).toContainText('fieldValidation=Strict');
  const strict = await dryRun(page, 400);
  expect(strict).toBe(`Widget in version "v1" cannot be handled as a Widget: strict decoding error: ${bogus.message}`);

  // Without it, the schema's field errors come back as one 422, each as shown while typing.
  await editor.fill(edited.replace('  bogus: 1\n', ''));
  await expect(page.getByTestId('validation-problems').locator('li')).toHaveCount(2);
  const invalid = await dryRun(page, 422);
  const shown = (await listedProblems(page)).map((p) => p.message);
  expect(invalid).toBe(`Widget.example.com "w-03" is invalid: [${shown.join(', ')}]`);
  await saveScreen(page, 'validate-widget-sent');
});

test('a deployment: an unknown field, a wrong Go type and a value beyond int32, marked while typing as the server words them', async ({ page }) => {
  await page.goto('./?group=apps&version=v1&resource=deployments&namespace=demo&name=web');
  const editor = await openEditor(page, 'Deployment');
  const original = await editor.inputValue();
  const edited = original
    .replace(/^ {2}replicas: \d+$/m, '  replicas: 3000000000\n  bogus: 1')
    .replace(/^ {2}revisionHistoryLimit: \d+$/m, '  revisionHistoryLimit: ten');
  await editor.fill(edited);
  const expected = [
    { line: lineOf(edited, /^ {2}replicas: 3000000000$/), message: 'json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32' },
    { line: lineOf(edited, /^ {2}revisionHistoryLimit: ten$/), message: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.revisionHistoryLimit of type int32' },
    { line: lineOf(edited, /^ {2}bogus: 1$/), message: 'unknown field "spec.bogus"' },
  ];
  await expect(page.getByTestId('validation-problems').locator('li')).toHaveCount(3);
  const listed = await listedProblems(page);
  expect(listed.sort((a, b) => a.line - b.line)).toEqual(expected.sort((a, b) => a.line - b.line));
  expect(await markedLines(page)).toEqual(expected.map((p) => p.line).sort((a, b) => a - b));
  await saveScreen(page, 'validate-deployment-typing');

  // A body that does not decode into its Go type is refused whatever fieldValidation says; the
  // server names the first decode error, in the words shown for its line.
  const handled = 'Deployment in version "v1" cannot be handled as a Deployment';
  // The decode errors in the order of the body (the order of the lines), then the unknown field.
  const decodeErrors = expected.filter((p) => p.message.startsWith('json: ')).sort((a, b) => a.line - b.line);
  const [first, second] = decodeErrors;
  const unknown = expected.find((p) => p.message.startsWith('unknown field'));
  expect(await dryRun(page, 400)).toBe(`${handled}: ${first.message}`);
  const fixed = first.message.includes('replicas') ? edited.replace('replicas: 3000000000', 'replicas: 2') : edited.replace('revisionHistoryLimit: ten', 'revisionHistoryLimit: 10');
  await editor.fill(fixed);
  await expect(page.getByTestId('validation-problems').locator('li')).toHaveCount(2);
  expect(await dryRun(page, 400)).toBe(`${handled}: ${second.message}`);
  const decodes = fixed.replace('replicas: 3000000000', 'replicas: 2').replace('revisionHistoryLimit: ten', 'revisionHistoryLimit: 10');
  await editor.fill(decodes);
  await expect(page.getByTestId('validation-problems').locator('li')).toHaveCount(1);
  // Then Strict refuses the unknown field.
  expect(await dryRun(page, 400)).toBe(`${handled}: strict decoding error: ${unknown.message}`);
  await saveScreen(page, 'validate-deployment-sent');
});
