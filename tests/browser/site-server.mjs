// A built site served over HTTP under a base path, the way GitHub Pages serves a project
// site: a folder's URL serves its index.html, anything else the site's 404 page.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';

const types = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.csv': 'text/csv; charset=utf-8',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
};

// Serves `siteDir` under `basePath` on a free port of 127.0.0.1: the origin and the server.
export async function serveSite(siteDir, basePath) {
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
  return { origin: `http://127.0.0.1:${server.address().port}`, server };
}
