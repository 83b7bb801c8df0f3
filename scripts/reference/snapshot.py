"""Read files out of a transformers snapshot (a bare git dir or a checkout) without a work tree."""

import os
import subprocess


class Snapshot:
    """One commit of a repository, read either through `git show` or from a checked-out tree."""

    def __init__(self, path, commit=None):
        self.path = os.path.abspath(path)
        self.is_checkout = os.path.isdir(os.path.join(self.path, "src"))
        if self.is_checkout:
            # A checkout is read as files. Its stamp is its HEAD; without git metadata, --commit
            # names what it is (else "unknown"); a --commit that is not its HEAD is an error.
            head = self._git("rev-parse", "HEAD").strip() if self._has_git() else None
            if head and commit and not head.startswith(commit):
                raise SystemExit(f"{self.path} is checked out at {head}, not {commit}")
            self.commit = head or commit or "unknown"
        else:
            self.commit = self._git("rev-parse", "--verify", (commit or "HEAD") + "^{commit}").strip()
        self._listing = None
        self._batch = None

    def _has_git(self):
        try:
            self._git("rev-parse", "HEAD")
            return True
        except subprocess.CalledProcessError:
            return False

    def _git(self, *args):
        flag = ["-C", self.path] if self.is_checkout else ["--git-dir", self.path]
        return subprocess.run(["git", *flag, *args], check=True, capture_output=True, text=True).stdout

    def files(self, prefix):
        """Every file path under `prefix` (relative to the repository root)."""
        if self.is_checkout:
            out = []
            root = os.path.join(self.path, prefix)
            for base, _dirs, names in os.walk(root):
                for name in names:
                    out.append(os.path.relpath(os.path.join(base, name), self.path))
            return sorted(out)
        if self._listing is None:
            self._listing = self._git("ls-tree", "-r", "--name-only", self.commit).splitlines()
        return [p for p in self._listing if p.startswith(prefix)]

    def read(self, path):
        if self.is_checkout:
            with open(os.path.join(self.path, path), encoding="utf-8") as handle:
                return handle.read()
        if self._batch is None:
            self._batch = subprocess.Popen(
                ["git", "--git-dir", self.path, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
            )
        self._batch.stdin.write(f"{self.commit}:{path}\n".encode())
        self._batch.stdin.flush()
        header = self._batch.stdout.readline().decode().split()
        if len(header) != 3 or header[1] != "blob":
            raise FileNotFoundError(f"{path} at {self.commit}")
        data = self._batch.stdout.read(int(header[2]))
        self._batch.stdout.read(1)
        return data.decode("utf-8")
