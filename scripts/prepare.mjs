// The build on install: package.json runs this as `postprepare`, a script npm runs only for the
// project being installed, never for a dependency. The packed package.json so carries no
// install-time script (preinstall, install, postinstall, prepare): installing the tarball runs
// nothing and npm has no script of posenc to ask the user to allow. npm runs it in two places:
// - when it installs posenc from git (`npm install git+https://...`): npm clones the repository
//   into its cache and, because package.json has scripts (`build`), runs `npm install` there, which
//   installs the devDependencies and runs this; then it packs the result. There is no dist/ in git,
//   so this must build it, and where the toolchain is missing it must stop and say what is missing
//   and how else to install posenc;
// - after `npm install` / `npm ci` in a checkout: there it builds when it can and otherwise leaves
//   the set-up to `npm start` / `npm run build`, which install what is missing.
import { resolve, sep } from 'node:path';

import { buildPackage } from './lib/builds.mjs';
import { ROOT } from './lib/run.mjs';
import { missingTools } from './lib/setup.mjs';

const cache = process.env.npm_config_cache;
const asGitDependency = cache !== undefined && resolve(ROOT).startsWith(resolve(cache) + sep);
const missing = missingTools('build');

if (missing.length > 0) {
  const pkgs = [...new Set(missing.map((t) => t.pkg))].join(' ');
  if (asGitDependency) {
    console.error([
      `posenc: cannot build posenc from git on this machine: ${missing.map((t) => t.what).join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing.`,
      'Either install the toolchain (Debian or Ubuntu) and retry:',
      `  apt-get install --no-install-recommends ${pkgs}`,
      'or install the release tarball, which needs no toolchain. Build it once where the toolchain is:',
      '  git clone https://github.com/posenc/posenc && cd posenc && npm run build && npm pack',
      '  then, in your project: npm install /path/to/posenc-<version>.tgz',
    ].join('\n'));
    process.exit(1);
  }
  console.log(`posenc: postprepare: not building dist/ yet (${missing.map((t) => t.what).join(', ')} missing); ` +
    '`npm start` or `npm run build` installs the toolchain and builds');
  process.exit(0);
}
buildPackage();
