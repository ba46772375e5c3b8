import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A fixture repository: file name → content (a `mode` of 0o755 makes it executable; `link` makes a
 * symbolic link; `zeros` makes a file of that many zero bytes, sparse on disk, so that even a
 * gigabyte costs git only the time to compress it).
 */
export type Fixture = Record<string, string | { content: string; mode: number } | { link: string } | { zeros: number }>;

export interface GitServer {
  /** e.g. http://127.0.0.1:43123 */
  readonly url: string;
  /** `127.0.0.1:<port>`, for allowedHosts. */
  readonly host: string;
  /** The address of the fixture `name`. */
  repositoryUrl(name: string): string;
  /** Where the fixture's working tree is (for file:// tests). */
  workingTree(name: string): string;
  /**
   * Commits `files` (written over the working tree) on `main` and pushes it to the served
   * repository, as a student pushing again; `replaceHistory` pushes a new root commit with
   * --force, so every earlier commit becomes unreachable. Answers the new commit id.
   */
  push(name: string, files: Record<string, string>, options?: { replaceHistory?: boolean }): Promise<string>;
  /** The commit at the head of the fixture's `main`. */
  head(name: string): Promise<string>;
  /** How many connections the server has accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0' };

async function git(cwd: string, ...args: string[]) {
  await run('git', ['-c', 'user.name=Fixture', '-c', 'user.email=fixture@example.edu', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    env: gitEnv,
  });
}

/** Builds `repositories` (each committed once on `main`, then cloned bare; an empty fixture stays without commits) in a temporary folder. */
async function buildRepositories(base: string, repositories: Record<string, Fixture>) {
  const root = join(base, 'served');
  await mkdir(root);
  await Promise.all(
    Object.entries(repositories).map(async ([name, files]) => {
      if (Object.keys(files).length === 0) {
        await git(base, 'init', '-q', '--bare', join(root, `${name}.git`)); // no commits at all
        return;
      }
      const work = join(base, 'work', name);
      await mkdir(work, { recursive: true });
      await git(work, 'init', '-q');
      for (const [path, file] of Object.entries(files)) {
        const target = join(work, path);
        await mkdir(dirname(target), { recursive: true });
        if (typeof file === 'string') await writeFile(target, file);
        else if ('link' in file) await symlink(file.link, target);
        else if ('zeros' in file) await writeFile(target, '').then(() => truncate(target, file.zeros));
        else {
          await writeFile(target, file.content);
          await chmod(target, file.mode);
        }
      }
      await git(work, 'add', '-A');
      await git(work, 'commit', '-q', '-m', 'Submission');
      await git(base, 'clone', '-q', '--bare', work, join(root, `${name}.git`));
    }),
  );
  return root;
}

export interface GitServerOptions {
  /**
   * Serves the fixture of this name at every address that names no fixture of its own (any path
   * before git's own `/info/refs`, `/git-upload-pack`…), so gradeables with any `vcs_path` on this
   * server have a repository for every student. Its answers are remembered until a push: many
   * submissions read its head without spawning git each time.
   */
  readonly anyPath?: string;
}

/**
 * The repository the run's git server (test/support/global-setup.ts) serves at every path, and the
 * bench's: a submission that passes simple test cases (`sh hello.sh` greets, README.md exists).
 */
export const SHARED_REPOSITORY = {
  name: 'submission',
  files: { 'hello.sh': 'echo "Hello, World!"\n', 'README.md': '# Homework\n' },
} as const satisfies { name: string; files: Fixture };

/** Git's own part of a smart-HTTP address, after the repository's path. */
const GIT_SUFFIX = /\/(info\/refs|git-upload-pack|git-receive-pack|HEAD|objects\/.*)$/;

/**
 * A git server over real HTTP on 127.0.0.1 (a free port) serving fixture repositories at
 * `/<name>.git` with `git http-backend`, spawned as a CGI program per request. `/moved/<name>.git`
 * redirects there; `/to-metadata/…` redirects to http://169.254.169.254/.
 */
export async function startGitServer(repositories: Record<string, Fixture>, options: GitServerOptions = {}): Promise<GitServer> {
  const base = await mkdtemp(join(tmpdir(), 'git-server-'));
  const root = await buildRepositories(base, repositories);
  const remembered = new Map<string, { headers: Record<string, string>; body: Buffer }>();
  const fixturePaths = new Set(Object.keys(repositories).map((name) => `/${name}.git`));
  // `/any/path/info/refs` → `/<anyPath>.git/info/refs`, unless the path names a fixture.
  const servedPath = (path: string) => {
    const suffix = GIT_SUFFIX.exec(path);
    if (!options.anyPath || !suffix || fixturePaths.has(path.slice(0, suffix.index))) return path;
    return `/${options.anyPath}.git${suffix[0]}`;
  };

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (!options.anyPath) {
      serve(url, request, response);
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      // By the repository served: every path of the shared repository has the same answers.
      const served = servedPath(decodeURIComponent(url.pathname));
      const key = [request.method, `${served}${url.search}`, request.headers['git-protocol'] ?? '', body.toString('base64')].join(' ');
      const known = remembered.get(key);
      if (known) {
        response.writeHead(200, known.headers).end(known.body);
        return;
      }
      rememberAnswer(response, key);
      serve(url, request, response, body);
    });
  });

  /** Keeps what `response` sends under `key` once it ended with 200. */
  function rememberAnswer(response: ServerResponse, key: string) {
    const chunks: Buffer[] = [];
    const write = response.write.bind(response);
    response.write = ((chunk: Buffer) => {
      chunks.push(Buffer.from(chunk));
      return write(chunk);
    }) as typeof response.write;
    response.on('finish', () => {
      if (response.statusCode !== 200) return;
      const headers = Object.fromEntries(Object.entries(response.getHeaders()).map(([name, value]) => [name, String(value)]));
      remembered.set(key, { headers, body: Buffer.concat(chunks) });
    });
  }

  function serve(url: URL, request: IncomingMessage, response: ServerResponse, body?: Buffer) {
    // /moved/<path> redirects to /<path>; /to-metadata/<path> to the cloud metadata address.
    if (url.pathname.startsWith('/moved/')) {
      response.writeHead(301, { location: `${url.pathname.slice('/moved'.length)}${url.search}` }).end();
      return;
    }
    if (url.pathname.startsWith('/to-metadata/')) {
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      return;
    }
    const backend = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        REQUEST_METHOD: request.method ?? 'GET',
        PATH_INFO: servedPath(decodeURIComponent(url.pathname)),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        ...(request.headers['content-length'] ? { CONTENT_LENGTH: request.headers['content-length'] } : {}),
        ...(request.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: request.headers['content-encoding'] } : {}),
        ...(request.headers['git-protocol'] ? { GIT_PROTOCOL: String(request.headers['git-protocol']) } : {}),
        REMOTE_ADDR: request.socket.remoteAddress ?? '127.0.0.1',
        SERVER_PROTOCOL: 'HTTP/1.1',
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    if (body) backend.stdin.end(body);
    else request.pipe(backend.stdin);
    backend.stdin.on('error', () => undefined);

    // Translate the CGI answer: headers up to a blank line (Status: sets the code), then the body.
    let head = Buffer.alloc(0);
    let headersDone = false;
    backend.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        response.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      let end = head.indexOf('\r\n\r\n');
      let separator = 4;
      if (end < 0) {
        end = head.indexOf('\n\n');
        separator = 2;
      }
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
        else response.setHeader(name, value);
      }
      response.statusCode = status;
      response.write(head.subarray(end + separator));
    });
    backend.on('close', () => {
      if (!headersDone && !response.headersSent) response.statusCode = 502;
      response.end();
    });
    backend.on('error', () => {
      if (!response.headersSent) response.statusCode = 500;
      response.end();
    });
  }

  let connections = 0;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    host: `127.0.0.1:${port}`,
    repositoryUrl: (name) => `${url}/${name}.git`,
    workingTree: (name) => join(base, 'work', name),
    async push(name, files, options = {}) {
      const work = join(base, 'work', name);
      if (options.replaceHistory) await git(work, 'checkout', '-q', '--orphan', `rewrite-${Date.now()}`);
      for (const [path, content] of Object.entries(files)) {
        await mkdir(dirname(join(work, path)), { recursive: true });
        await writeFile(join(work, path), content);
      }
      await git(work, 'add', '-A');
      await git(work, 'commit', '-q', '-m', 'Pushed again');
      await git(work, 'push', '-q', '--force', join(root, `${name}.git`), 'HEAD:main');
      remembered.clear();
      return (await run('git', ['rev-parse', 'HEAD'], { cwd: work, env: gitEnv })).stdout.trim();
    },
    async head(name) {
      return (await run('git', ['rev-parse', 'main'], { cwd: join(root, `${name}.git`), env: gitEnv })).stdout.trim();
    },
    connections: () => connections,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(base, { recursive: true, force: true });
    },
  };
}
