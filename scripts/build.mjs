// npm run build: set up what is missing, then build the npm package into dist/.
import { buildPackage } from './lib/builds.mjs';
import { ensureSetup } from './lib/setup.mjs';

ensureSetup('build');
buildPackage();
console.log('posenc: built dist/');
