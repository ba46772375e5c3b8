/**
 * The only way out of an emulated CodeBuild build's network namespace: listens on the address the
 * build knows S3 by (the local endpoint's 127.0.0.1:<port>, inside the build's own namespace) and
 * passes each connection to a Unix socket where the test's AWS endpoint serves S3 as the VPC's S3
 * gateway endpoint does (its policy applied). Started by the build's set-up as an unprivileged
 * user; dies with the build's PID namespace. Imports nothing from the project.
 */
import { writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

const [host, port, socketPath, readyFile] = process.argv.slice(2) as [string, string, string, string];

const server = createServer((client) => {
  const upstream = connect(socketPath);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', close);
  upstream.on('error', close);
  client.on('close', close);
  upstream.on('close', close);
  client.pipe(upstream).pipe(client);
});
server.listen(Number(port), host, () => writeFileSync(readyFile, ''));
