// A real git remote for the scanner's clone tests: a Node HTTP server running `git http-backend`
// as CGI over the bare repositories under one directory (smart HTTP, what a git host serves).
import { spawn, execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitServer {
  url: string;
  close(): Promise<void>;
}

const BACKEND = `${execFileSync('git', ['--exec-path']).toString().trim()}/git-http-backend`;

export async function startGitServer(projectRoot: string): Promise<GitServer> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const cgi = spawn(BACKEND, [], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_ADDR: req.socket.remoteAddress ?? '',
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
    });
    req.pipe(cgi.stdin);
    const out: Buffer[] = [];
    cgi.stdout.on('data', (c: Buffer) => out.push(c));
    cgi.on('close', () => {
      const all = Buffer.concat(out);
      const split = all.indexOf('\r\n\r\n') >= 0 ? all.indexOf('\r\n\r\n') : all.indexOf('\n\n');
      const sep = all.indexOf('\r\n\r\n') >= 0 ? 4 : 2;
      const head = all.subarray(0, split).toString('latin1');
      let status = 200;
      for (const line of head.split(/\r?\n/)) {
        const i = line.indexOf(':');
        if (i < 0) continue;
        const name = line.slice(0, i).trim();
        const value = line.slice(i + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else res.setHeader(name, value);
      }
      res.statusCode = status;
      res.end(all.subarray(split + sep));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
