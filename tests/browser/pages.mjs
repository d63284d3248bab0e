// Loads every page of a built site in headless Chromium, served under a base path the way
// GitHub Pages serves a project site, and fails on any console error, page error or failed
// request, on a chart container without a rendered chart, or on a sort button that does not
// reorder its table.
//
// usage: node pages.mjs SITE_DIR BASE_PATH [ONLY]
// ONLY, when given, is a comma-separated list of the page paths to visit: a path ending in
// `/` visits every page below it, an empty item the home page.
import { createServer } from 'node:http';
import { readFile, readdir, stat } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { launch } from './chromium.mjs';

const [siteDir, basePath = '/', only] = process.argv.slice(2);
if (!siteDir) {
  console.error('usage: node pages.mjs SITE_DIR BASE_PATH [ONLY]');
  process.exit(2);
}

const types = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.csv': 'text/csv; charset=utf-8',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
};

async function fileFor(urlPath) {
  if (!urlPath.startsWith(basePath)) return null;
  let inside = decodeURIComponent(urlPath.slice(basePath.length));
  if (inside === '' || inside.endsWith('/')) inside += 'index.html';
  const path = join(siteDir, inside);
  if (relative(siteDir, path).startsWith('..')) return null;
  try {
    return (await stat(path)).isFile() ? path : null;
  } catch {
    return null;
  }
}

const server = createServer(async (request, response) => {
  const urlPath = new URL(request.url, 'http://localhost').pathname;
  const path = await fileFor(urlPath);
  if (path) {
    response.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' });
    response.end(await readFile(path));
  } else {
    response.writeHead(404, { 'content-type': types['.html'] });
    response.end(await readFile(join(siteDir, '404.html')));
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

async function htmlPages(dir) {
  const pages = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) pages.push(...(await htmlPages(path)));
    else if (entry.name.endsWith('.html')) pages.push(relative(siteDir, path).split(sep).join('/'));
  }
  return pages.sort();
}

const browser = await launch();
const problems = [];
let charts = 0;
let pagesChecked = 0;
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const paths = (await htmlPages(siteDir)).map((file) =>
    file === '404.html' ? 'no/such/page/' : file.replace(/index\.html$/, ''))
    .filter((path) => only === undefined
      || only.split(',').some((item) => (item === '' ? path === '' : path.startsWith(item))));
  for (const path of paths) {
    const page = await context.newPage();
    const where = basePath + path;
    const missing = path === 'no/such/page/';
    page.on('console', (message) => {
      // The 404 page's own status is the one error expected, and only there.
      const own404 = missing && message.location().url === origin + where;
      if (message.type() === 'error' && !own404) {
        problems.push(`${where}: console error: ${message.text()} (${message.location().url})`);
      }
    });
    page.on('pageerror', (error) => problems.push(`${where}: page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`${where}: request failed: ${request.url()}`));
    page.on('response', (response) => {
      if (response.status() >= 400 && response.url() !== origin + where) {
        problems.push(`${where}: ${response.status()} for ${response.url()}`);
      }
    });
    await page.goto(origin + where, { waitUntil: 'load' });
    const figures = await page.locator('figure.chart').count();
    const failedAlready = problems.some((problem) => problem.startsWith(`${where}: page error`));
    if (figures > 0 && !failedAlready) {
      await page.waitForFunction(
        (count) => document.querySelectorAll('figure.chart .chart-box canvas').length >= count,
        figures,
        { timeout: 5000 },
      ).catch(() => problems.push(`${where}: not every chart rendered`));
      const rendered = await page.locator('figure.chart .chart-box canvas').count();
      charts += Math.min(rendered, figures);
    }
    pagesChecked += 1;
    await page.close();
  }

  // Sorting: the runs table by decode speed, both ways.
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`sorting: page error: ${error.message}`));
  await page.goto(`${origin}${basePath}runs/`, { waitUntil: 'load' });
  const table = page.locator('table.sortable').first();
  const column = (await table.locator('thead th').allTextContents())
    .findIndex((text) => text.trim().startsWith('Decode'));
  const decode = async () => table.locator('tbody tr').evaluateAll((rows, at) =>
    rows.map((row) => parseFloat(row.cells[at].getAttribute('data-sort'))), column);
  const before = await decode();
  await table.locator('thead th').nth(column).locator('button.sort').click();
  const ascending = await decode();
  await table.locator('thead th').nth(column).locator('button.sort').click();
  const descending = await decode();
  const sorted = [...before].sort((a, b) => a - b);
  if (JSON.stringify(ascending) !== JSON.stringify(sorted)) {
    problems.push(`sorting: ascending gave ${ascending}, expected ${sorted}`);
  }
  if (JSON.stringify(descending) !== JSON.stringify([...sorted].reverse())) {
    problems.push(`sorting: descending gave ${descending}`);
  }
  if (JSON.stringify(ascending) === JSON.stringify(before)) {
    problems.push('sorting: the click did not reorder the table');
  }
  console.log(`sorted the runs table: ${before} -> ${ascending} -> ${descending}`);
} finally {
  await browser.close();
  server.close();
}

console.log(`${pagesChecked} pages, ${charts} charts rendered, ${problems.length} problems`);
for (const problem of problems) console.log(problem);
process.exit(problems.length === 0 ? 0 : 1);
