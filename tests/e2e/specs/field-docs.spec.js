// Field docs in place and completion (#19 item 2): the object view's keys show their field's type
// and description on hover and keyboard focus (with a link to the schema explorer at the field);
// the editor shows the docs of the field at the cursor and under the pointer, and completes field
// names and values from the kind's /openapi/v3 schema at the cursor's path, by keyboard.
const { test, expect } = require('@playwright/test');
const { openEditor, saveScreen } = require('./helpers');

/** The key token `name` on the first line of the object's document that starts with `indent` + `name:`. */
function documentKey(page, indent, name) {
  return page
    .getByTestId('document-text')
    .locator('.code__line')
    .filter({ hasText: new RegExp(`^${' '.repeat(indent)}${name}:`) })
    .first()
    .locator('.tok--key');
}

/** Puts the cursor at the end of the first line of the editor matching `pattern`. */
async function cursorAfter(editor, pattern) {
  await editor.evaluate((area, source) => {
    const lines = area.value.split('\n');
    const index = lines.findIndex((line) => new RegExp(source).test(line));
    if (index < 0) throw new Error(`no line matches ${source}`);
    const end = lines.slice(0, index + 1).join('\n').length;
    area.focus();
    area.setSelectionRange(end, end);
  }, pattern.source);
}

test('a Deployment field shows its type and description on hover and on focus, and links to the schema explorer', async ({ page }) => {
  await page.goto('./?group=apps&version=v1&resource=deployments&namespace=demo&name=web');
  await expect(page.getByTestId('document-text')).toContainText('kind: Deployment');
  const popover = page.getByTestId('field-popover');

  // Hover: spec.replicas (the first `  replicas:` line is the spec's; the status's comes later).
  await documentKey(page, 2, 'replicas').hover();
  await expect(popover.getByTestId('field-docs-path')).toHaveText('spec.replicas');
  await expect(popover.getByTestId('field-docs-type')).toHaveText('<integer> int32');
  await expect(popover.getByTestId('field-docs-description')).toContainText('Number of desired pods.');
  await expect(popover).toHaveAttribute('role', 'tooltip');
  await saveScreen(page, 'field-docs-hover');

  // A type the explorer words with its format, and a map's key.
  await documentKey(page, 6, 'maxSurge').hover();
  await expect(popover.getByTestId('field-docs-path')).toHaveText('spec.strategy.rollingUpdate.maxSurge');
  await expect(popover.getByTestId('field-docs-type')).toHaveText('<IntOrString> int-or-string');
  await documentKey(page, 4, 'app').first().hover();
  await expect(popover).toContainText('the value of key app in metadata.labels');
  await expect(popover.getByTestId('field-docs-type')).toHaveText('<map[string]string>');

  // Keyboard: the document takes the focus, ↓ goes to its first key (the app writes kind first),
  // which the popover describes.
  await page.mouse.move(0, 0);
  await expect(popover).toHaveCount(0);
  await page.getByTestId('document-text').focus();
  await page.keyboard.press('ArrowDown');
  const first = page.getByTestId('document-text').locator('.tok--key').first();
  await expect(first).toBeFocused();
  await expect(first).toHaveAttribute('aria-describedby', 'field-docs-popover');
  await expect(popover.getByTestId('field-docs-path')).toHaveText('kind');
  await expect(popover.getByTestId('field-docs-description')).toContainText('Kind is a string value representing the REST resource');
  await page.keyboard.press('ArrowDown');
  await expect(popover.getByTestId('field-docs-path')).toHaveText('apiVersion');
  await expect(popover.getByTestId('field-docs-description')).toContainText('APIVersion defines the versioned schema');
  await page.keyboard.press('Escape');
  await expect(popover).toHaveCount(0);
  await page.keyboard.press('ArrowUp');
  await expect(popover.getByTestId('field-docs-path')).toHaveText('kind');
  await saveScreen(page, 'field-docs-focus');
  // Tab from the key reaches the popover's link; it opens the schema explorer at the field.
  await page.keyboard.press('Tab');
  await expect(popover.getByTestId('field-docs-explain')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/explain=kind(&|$)/);
  await expect(page.getByTestId('explain-field')).toHaveText('kind');
});

test('the editor completes a Deployment field name and an enum value by keyboard, with the docs at the cursor', async ({ page }) => {
  await page.goto('./?group=apps&version=v1&resource=deployments&namespace=demo&name=web');
  const editor = await openEditor(page, 'Deployment');
  const original = await editor.inputValue();
  // The container without its imagePullPolicy, then a new key typed below its image.
  await editor.fill(original.replace(/^ *imagePullPolicy: .*\n/m, ''));
  await expect(page.getByTestId('validation-state')).toContainText("Nothing the server's schema would refuse");
  // (Keys come sorted: the container's image line follows its env, whose entries are deeper.)
  await cursorAfter(editor, /^ {6}(- | {2})image: /);
  await page.keyboard.press('Enter');
  await page.keyboard.type('        imagePu');
  const list = page.getByRole('listbox', { name: 'Suggestions' });
  await expect(list).toBeVisible();
  await expect(list.getByRole('option')).toHaveText([/^imagePullPolicy/]);
  await expect(list.getByRole('option').first()).toHaveAttribute('aria-selected', 'true');
  const firstOption = await list.getByRole('option').first().getAttribute('id');
  await expect(editor).toHaveAttribute('aria-activedescendant', firstOption);
  // The docs under the editor follow the option chosen.
  await expect(page.getByTestId('cursor-docs').getByTestId('field-docs-path')).toHaveText('spec.template.spec.containers.imagePullPolicy');
  await saveScreen(page, 'field-docs-complete-name');
  await page.keyboard.press('Enter');
  // The key is written with its colon, and the field's values are offered at once: its
  // description names them (the built-in kinds' documents have no enum).
  await expect(list.getByRole('option')).toHaveText([/^Always/, /^Never/, /^IfNotPresent/]);
  await expect(list).toContainText('named in the description');
  await page.keyboard.press('ArrowDown');
  await expect(list.getByRole('option').nth(1)).toHaveAttribute('aria-selected', 'true');
  await saveScreen(page, 'field-docs-complete-value');
  await page.keyboard.press('Tab');
  await expect(list).toHaveCount(0);
  await expect(editor).toHaveValue(/\n {6}(- | {2})image: [^\n]+\n {8}imagePullPolicy: Never\n/);
  await expect(page.getByTestId('cursor-docs').getByTestId('field-docs-path')).toHaveText('spec.template.spec.containers.imagePullPolicy');
  await expect(page.getByTestId('validation-state')).toContainText("Nothing the server's schema would refuse");
  // Undo takes the completion back as one step.
  await page.keyboard.press('Control+z');
  await expect(editor).toHaveValue(/\n {8}imagePullPolicy: \n/);

  // Ctrl+Space on an empty line of the container: the fields not there yet; Esc closes.
  await cursorAfter(editor, /^ {8}imagePullPolicy: /);
  await page.keyboard.press('Enter');
  await page.keyboard.type('        ');
  await page.keyboard.press('Control+Space');
  await expect(list).toBeVisible();
  const offered = await list.getByRole('option').locator('.completion__label').allInnerTexts();
  expect(offered).toContain('livenessProbe');
  expect(offered).not.toContain('image');
  expect(offered).not.toContain('name');
  await page.keyboard.press('Escape');
  await expect(list).toHaveCount(0);
  await expect(page.getByTestId('object-title')).toBeVisible();

  // Under the pointer: the key's docs in a tooltip.
  const replicas = page.locator('.editor__highlight .editor__line').filter({ hasText: /^ {2}replicas:/ }).first().locator('.tok--key');
  // (The textarea lies over the highlighted keys and takes the pointer.)
  await replicas.scrollIntoViewIfNeeded();
  const box = await replicas.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await expect(page.getByTestId('editor-hover').getByTestId('field-docs-path')).toHaveText('spec.replicas');
  await saveScreen(page, 'field-docs-editor-hover');
});

test('a custom resource: its schema completes a field name and an enum value, and a field it lacks is named', async ({ page }) => {
  await page.goto('./?group=example.com&version=v1&resource=widgets&namespace=default&name=w-03');
  await expect(page.getByTestId('document-text')).toContainText('kind: Widget');
  // The object view: a CRD field's docs say its enum and bounds' default.
  await documentKey(page, 2, 'size').hover();
  const popover = page.getByTestId('field-popover');
  await expect(popover.getByTestId('field-docs-path')).toHaveText('spec.size');
  await expect(popover.getByTestId('field-docs-type')).toHaveText('<string>');
  await expect(popover).toContainText('small, medium, large');
  await expect(popover).toContainText('-required-');

  const editor = await openEditor(page, 'Widget');
  // The value of size, typed again: the enum completes it.
  await cursorAfter(editor, /^ {2}size: /);
  await page.keyboard.press('Shift+Home');
  await page.keyboard.type('  size: me');
  const list = page.getByRole('listbox', { name: 'Suggestions' });
  await expect(list.getByRole('option')).toHaveText([/^medium/]);
  await page.keyboard.press('Enter');
  await expect(editor).toHaveValue(/\n {2}size: medium\n/);
  // A new field of spec: only those not there (tags), completed to a list's first item.
  await page.keyboard.press('Enter');
  await page.keyboard.type('  ta');
  await expect(list.getByRole('option')).toHaveText([/^tags/]);
  await saveScreen(page, 'field-docs-widget-complete');
  await page.keyboard.press('Enter');
  await expect(editor).toHaveValue(/\n {2}size: medium\n {2}tags:\n {2}- \n/);
  await page.keyboard.type('blue');
  await expect(page.getByTestId('validation-state')).toContainText("Nothing the server's schema would refuse");
  // A key the schema lacks: Ctrl+Space says so instead of offering anything.
  await page.keyboard.press('Enter');
  await page.keyboard.type('  bogus:\n    ');
  await page.keyboard.press('Control+Space');
  await expect(page.getByTestId('completion-none')).toHaveText('bogus is not a field of spec in the schema: Strict field validation refuses it');
  await expect(page.getByTestId('cursor-docs')).toContainText('Put the cursor on a field');
});

test('edited as JSON, a custom resource completes a quoted field name and a quoted enum value', async ({ page }) => {
  await page.goto('./?group=example.com&version=v1&resource=widgets&namespace=default&name=w-03');
  const editor = await openEditor(page, 'Widget');
  await page.getByRole('group', { name: 'Edit as' }).getByRole('button', { name: 'JSON' }).click();
  await expect(editor).toHaveValue(/"kind": "Widget"/);
  // spec without its size; a new member typed as spec's first.
  const widget = JSON.parse(await editor.inputValue());
  expect(widget.spec.size).toBeTruthy();
  delete widget.spec.size;
  await editor.fill(JSON.stringify(widget, null, 2));
  await cursorAfter(editor, /^ {2}"spec": \{$/);
  const list = page.getByRole('listbox', { name: 'Suggestions' });
  await page.keyboard.press('Enter');
  await page.keyboard.type('    "si');
  await expect(list.getByRole('option')).toHaveText([/^size/]);
  await page.keyboard.press('Enter');
  // The name is written quoted with its colon, and the enum is offered at once, quoted.
  await expect(list.getByRole('option')).toHaveText([/^small/, /^medium/, /^large/]);
  await page.keyboard.press('ArrowDown');
  await saveScreen(page, 'field-docs-json-complete-value');
  await page.keyboard.press('Enter');
  await expect(list).toHaveCount(0);
  await expect(editor).toHaveValue(/\n {2}"spec": \{\n {4}"size": "medium"\n/);
  await expect(page.getByTestId('cursor-docs').getByTestId('field-docs-path')).toHaveText('spec.size');
  // The comma that ends the member: the edit is valid JSON the schema accepts.
  await page.keyboard.type(',');
  await expect(page.getByTestId('validation-state')).toContainText("Nothing the server's schema would refuse");
});
