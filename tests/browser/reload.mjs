// Live reload in a real browser: a page served by `benchsite serve` reloads by itself after
// its Markdown is edited, shows a broken data edit as an overlay without reloading, and
// reloads without the overlay once the data is fixed. Fails on any console or page error.
//
// usage: node reload.mjs SERVE_URL PROJECT_DIR
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launch } from './chromium.mjs';

const [url, project] = process.argv.slice(2);
if (!url || !project) {
  console.error('usage: node reload.mjs SERVE_URL PROJECT_DIR');
  process.exit(2);
}

const browser = await launch();
const problems = [];
const timeout = 15000;
try {
  const page = await browser.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // The page's socket greets it with the current build; only then can an edit be seen.
  const greeted = new Promise((resolve) => page.on('websocket', (socket) =>
    socket.on('framereceived', resolve)));
  await page.goto(`${url}method/`, { waitUntil: 'load' });
  await greeted;

  // 1. A Markdown edit: the page reloads by itself and shows the new text.
  await page.evaluate(() => { window.benchsiteMarker = 'before the edit'; });
  let reloaded = page.waitForEvent('load', { timeout });
  await appendFile(join(project, 'content/method.md'), '\nThis sentence arrived by live reload.\n');
  await reloaded;
  const marker = await page.evaluate(() => window.benchsiteMarker);
  if (marker !== undefined) problems.push('the page did not reload');
  const text = await page.locator('main').textContent();
  if (!text.includes('This sentence arrived by live reload.')) {
    problems.push('the reloaded page lacks the new sentence');
  }
  console.log('reloaded after a Markdown edit');

  // 2. Broken data: an overlay with the pointer appears over the page, which stays.
  const resultsPath = join(project, 'data/results.json');
  const good = await readFile(resultsPath, 'utf8');
  await page.evaluate(() => { window.benchsiteMarker = 'before the break'; });
  await writeFile(resultsPath, good.replace('"decode_tok_s": 289.0', '"decode_tok_s": "fast"'));
  const overlay = page.locator('#benchsite-overlay');
  await overlay.waitFor({ state: 'visible', timeout });
  // writeFile empties the file before it writes it, and serve may build between the two
  // (the overlay then says the file is empty): the overlay follows to the last edit.
  try {
    await page.waitForFunction(
      () => document.querySelector('#benchsite-overlay')?.textContent.includes('/runs/0/decode_tok_s'),
      null,
      { timeout },
    );
  } catch {
    problems.push(`the overlay says: ${await overlay.textContent()}`);
  }
  if (await page.evaluate(() => window.benchsiteMarker) !== 'before the break') {
    problems.push('the page reloaded on a broken edit');
  }
  // Its text reads in either scheme: contrast of the message against what is behind it.
  const contrast = () => page.evaluate(() => {
    const rgb = (text) => text.match(/[\d.]+/g).map(Number);
    const luminance = ([r, g, b]) => {
      const channel = (c) => { const s = c / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const pre = document.querySelector('#benchsite-overlay pre');
    const own = rgb(getComputedStyle(pre).backgroundColor);
    const behind = own.length === 4 && own[3] === 0
      ? rgb(getComputedStyle(document.getElementById('benchsite-overlay')).backgroundColor)
      : own;
    const [a, b] = [luminance(rgb(getComputedStyle(pre).color)), luminance(behind)];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  });
  const seen = [];
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    const ratio = await contrast();
    if (!(ratio >= 4.5)) problems.push(`the overlay's message has a contrast of ${ratio.toFixed(2)} in the ${scheme} scheme`);
    seen.push(`${ratio.toFixed(1)} ${scheme}`);
  }
  console.log(`overlay shown for broken data, its message at contrast ${seen.join(', ')}`);

  // 3. Fixed: the page reloads and the overlay is gone.
  reloaded = page.waitForEvent('load', { timeout });
  await writeFile(resultsPath, good);
  await reloaded;
  if (await overlay.count() !== 0) problems.push('the overlay stayed after the fix');
  console.log('overlay cleared after the fix');
} catch (error) {
  problems.push(`failed: ${error.message}`);
} finally {
  await browser.close();
}

console.log(`${problems.length} problems`);
for (const problem of problems) console.log(problem);
process.exit(problems.length === 0 ? 0 : 1);
