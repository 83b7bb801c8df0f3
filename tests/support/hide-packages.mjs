// Simulating a machine without some Debian packages, for one command: as root, in a private mount
// namespace (unshare -m), the packages' commands get overlay whiteouts in /usr/bin and the folders
// that are theirs alone get an empty folder mounted over them. Nothing outside that command sees
// the change (docs/building.md section 15).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Whether this process may make mount namespaces (root). */
export const canHide = process.getuid?.() === 0;

/**
 * The shell commands that hide `packages` (Debian package names) and `extraDirs` (folders), using
 * scratch folders under `work`. Run them inside `unshare -m` before the command under test.
 */
export function hidingCommands(work, packages, extraDirs = []) {
  const scratch = mkdtempSync(join(work, 'hide-'));
  const files = packages.flatMap((pkg) => execFileSync('dpkg', ['-L', pkg], { encoding: 'utf8' }).split('\n')).filter(Boolean);
  const whiteouts = join(scratch, 'bin-upper');
  for (const dir of [whiteouts, join(scratch, 'bin-work'), join(scratch, 'empty')]) mkdirSync(dir);
  for (const f of files) {
    const name = f.slice('/usr/bin/'.length);
    if (f.startsWith('/usr/bin/') && !name.includes('/') && !existsSync(join(whiteouts, name))) {
      execFileSync('mknod', [join(whiteouts, name), 'c', '0', '0']); // an overlay whiteout: the file is gone
    }
  }
  // Folders no other package shares (dpkg -S names a single owner), outermost only.
  // A symbolic link to a folder (clang-19's /usr/lib/cmake/clang-19) cannot be a mount point; its
  // target, where the package owns it, is in the list itself.
  const dirs = files.filter((f) => f.split('/').length > 3 && existsSync(f) && !lstatSync(f).isSymbolicLink() && statSync(f).isDirectory());
  const owners = dirs.length ? spawnSync('dpkg', ['-S', ...dirs], { encoding: 'utf8' }).stdout.split('\n') : [];
  const own = owners.filter((l) => /^[^,\s]+: /.test(l)).map((l) => l.slice(l.indexOf(': ') + 2));
  const all = [...new Set([...own, ...extraDirs])];
  const hidden = all.filter((d) => !all.some((o) => o !== d && d.startsWith(o + '/')));
  return [
    `mount -t overlay overlay -o lowerdir=/usr/bin,upperdir=${whiteouts},workdir=${join(scratch, 'bin-work')} /usr/bin`,
    ...hidden.map((d) => `mount --bind ${join(scratch, 'empty')} ${d}`),
  ];
}

/** [command, args] that run the shell `command` with `packages` hidden (the shell execs it: same PID). */
export function hiddenSpawnArgs(work, packages, command, extraDirs = []) {
  return ['unshare', ['-m', 'sh', '-c', `set -e; ${hidingCommands(work, packages, extraDirs).join('; ')}; exec ${command}`]];
}
