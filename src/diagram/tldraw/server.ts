// Serves the built validator page from 127.0.0.1 on a free port. Static files only, nothing outside the folder.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PAGE_DIR = fileURLToPath(new URL('../../../dist/tldraw-page', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
};

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

/** Answers GET `prefix` + PATH with the page's file at PATH (index.html for a folder), 404 for anything else: the
 *  handler servePage listens with, and that the inspector mounts under /tldraw/. */
export function pageFiles(dir = PAGE_DIR, prefix = '/'): (req: IncomingMessage, res: ServerResponse) => void {
  if (!existsSync(join(dir, 'index.html'))) {
    throw new Error(`the tldraw validator page is not built (${dir}/index.html is missing): run \`npm run build:tldraw\``);
  }
  const root = resolve(dir);
  return (req, res) => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    } catch {
      res.writeHead(400).end('bad path');
      return;
    }
    const file = path.startsWith(prefix) ? resolve(root, normalize('./' + path.slice(prefix.length) + (path.endsWith('/') ? 'index.html' : ''))) : '';
    if (!file || (file !== root && !file.startsWith(root + sep)) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'max-age=3600' });
    // A file gone between the check and the read, or a request dropped, ends this answer, not the server.
    pipeline(createReadStream(file), res, () => {});
  };
}

export async function servePage(dir = PAGE_DIR): Promise<PageServer> {
  const server: Server = createServer(pageFiles(dir));
  await new Promise<void>((ok, fail) => server.once('error', fail).listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
