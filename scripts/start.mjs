// npm start: set up what is missing, build the package, serve the lesson page on 127.0.0.1.
// Stopping npm's PID stops the server: package.json runs this script with `exec`, so npm's shell
// is replaced by node and npm forwards SIGINT/SIGTERM to it directly (a shell in between waits for
// its child instead of passing SIGINT on); and if npm dies anyway, the re-parenting check below
// notices.
import { buildPackage } from './lib/builds.mjs';
import { startServer, stopServer } from './lib/server.mjs';
import { ensureSetup } from './lib/setup.mjs';

ensureSetup('build');
buildPackage();

const wanted = Number(process.env.PORT ?? 8080);
let started;
try {
  started = await startServer({ port: wanted });
} catch (error) {
  if (error.code !== 'EADDRINUSE') throw error;
  started = await startServer({ port: 0 }); // the usual port is taken: take any free one
}
console.log(`\nposenc lesson page: ${started.url}\n(Ctrl+C to stop)`);

let stopping = false;
async function stop(why) {
  if (stopping) return;
  stopping = true;
  console.log(`\nposenc: stopping the server (${why})`);
  await stopServer(started.server);
  process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(signal));

// When npm (or the shell between) exits, this process is re-parented: its parent PID changes.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop('the npm process that started it has exited');
}, 250).unref(); // unref: the listening server alone keeps the process alive
