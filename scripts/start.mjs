// npm start: set up what is missing, build the package, serve the lesson page on 127.0.0.1.
import { buildPackage } from './lib/builds.mjs';
import { startServer } from './lib/server.mjs';
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
