// Plain JavaScript, so it runs (and explains itself) on any Node version.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `This project needs Node.js 24 (the Lambda runtime nodejs24.x); this is Node.js ${process.versions.node}.\n` +
      'Run it through npm scripts (npm start, npm test), which use the Node 24 installed by `npm ci`.',
  );
  process.exit(1);
}
