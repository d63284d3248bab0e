// The long tables of a large report in headless Chromium: the answer on `/sweeps/` is drawn
// from the page as built; a paged table pages through every one of its rows, in order and
// once each, fetching the data files beside its page; sorting a paged table sorts every row;
// a link to a row on a later page shows that row; a configuration's history page draws its
// trend and pages through every measurement. Fails on any console error, page error or
// failed request.
//
// usage: node paged.mjs SITE_DIR BASE_PATH SWEEP_HISTORY FAILURE_ROW
import { launch } from './chromium.mjs';
import { serveSite } from './site-server.mjs';

const [siteDir, basePath, history, failureRow] = process.argv.slice(2);
if (!failureRow) {
  console.error('usage: node paged.mjs SITE_DIR BASE_PATH SWEEP_HISTORY FAILURE_ROW');
  process.exit(2);
}
const { origin, server } = await serveSite(siteDir, basePath);
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const problems = [];

async function open(path) {
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`${path}: console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`${path}: page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`${path}: request failed: ${r.url()}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`${path}: HTTP ${r.status()} for ${r.url()}`); });
  await page.goto(origin + basePath + path, { waitUntil: 'load' });
  return page;
}

// Every row a paged table shows, page after page until Next is disabled: `key` of each row.
async function pageThrough(page, table, key) {
  // A chart's table is in its closed "Data" box: open it, as a reader would.
  await table.evaluate((t) => { const box = t.closest('details'); if (box) box.open = true; });
  const figure = table.locator('xpath=ancestor::figure[1]');
  const next = figure.locator('p.pager button', { hasText: 'Next' });
  await next.waitFor();
  const rows = [];
  for (let pages = 0; pages < 1000; pages += 1) {
    const first = await table.locator('tbody tr').first().evaluate((row) => row.outerHTML);
    rows.push(...(await table.locator('tbody tr').evaluateAll((all, k) => all.map((row) => {
      const cell = row.cells[k];
      return cell.getAttribute('data-sort') ?? cell.textContent.trim();
    }), key)));
    if (await next.isDisabled()) break;
    await next.click();
    await page.waitForFunction(([t, before]) => {
      const row = document.querySelectorAll('table[data-src]')[t].tBodies[0].rows[0];
      return row && row.outerHTML !== before;
    }, [await table.evaluate((t) => [...document.querySelectorAll('table[data-src]')].indexOf(t)), first]);
  }
  return rows;
}

// /sweeps/: the answer drawn, the sweeps table paged through, then sorted.
{
  const page = await open('sweeps/');
  await page.locator('section#frontier figure.chart canvas').first().waitFor({ timeout: 20000 });
  const best = await page.locator('.limits-best tbody tr').count();
  if (best === 0) problems.push('sweeps: no best configuration within the limits');
  const table = page.locator('table[data-src]').first();
  const total = Number(await table.getAttribute('data-rows'));
  const labels = await pageThrough(page, table, 0);
  if (labels.length !== total || new Set(labels).size !== total) {
    problems.push(`sweeps: paged through ${labels.length} rows (${new Set(labels).size} distinct) of ${total}`);
  }
  console.log(`/sweeps/: ${best} best configurations drawn beside the frontier; paged through ${labels.length} of ${total} sweeps`);
  // Sorting by a number column sorts every row, not the page.
  const numeric = await table.locator('thead th').evaluateAll((all) => all.findIndex((th) => th.classList.contains('num')));
  await table.locator('thead th').nth(numeric).locator('button.sort').click();
  await page.waitForFunction(() => document.querySelector('table[data-src] thead th[aria-sort]'));
  const keys = (await pageThrough(page, table, numeric)).map(parseFloat).filter((v) => !isNaN(v));
  const sorted = [...keys].sort((a, b) => a - b);
  if (keys.length < total - 50 || JSON.stringify(keys) !== JSON.stringify(sorted)) {
    problems.push(`sweeps: sorted ${keys.length} values, not in order: ${keys.slice(0, 60)}`);
  }
  console.log(`/sweeps/: sorted all ${keys.length} numbers of column ${numeric}`);
  await page.close();
}

// A link to a row on a later page of /failures/ shows it.
{
  const page = await open(`failures/#${failureRow}`);
  await page.locator(`tr[id="${failureRow}"]`).waitFor({ timeout: 20000 });
  console.log(`/failures/#${failureRow}: shown`);
  await page.close();
}

// A configuration's page: its trend drawn, every measurement paged through, any two chosen.
{
  const page = await open(`history/${history}/`);
  await page.locator('figure.chart canvas').first().waitFor({ timeout: 20000 });
  const table = page.locator('table[data-src]').first();
  const total = Number(await table.getAttribute('data-rows'));
  const records = await pageThrough(page, table, 1);
  if (records.length !== total || new Set(records).size !== total) {
    problems.push(`history: paged through ${records.length} rows (${new Set(records).size} distinct) of ${total}`);
  }
  await page.locator('form.versions:not([hidden])').waitFor();
  const choices = await page.locator('form.versions select[name="to"] option').count();
  if (choices !== total) problems.push(`history: ${choices} measurements to choose from, not ${total}`);
  console.log(`/history/${history}/: paged through ${records.length} of ${total} measurements, ${choices} to compare`);
  await page.close();
}

await browser.close();
server.close();
console.log(`${problems.length} problems`);
for (const problem of problems) console.log(problem);
process.exit(problems.length ? 1 : 0);
