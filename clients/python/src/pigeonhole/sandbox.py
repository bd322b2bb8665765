"""Starting a sandbox of one's own: the Pigeonhole server as a child process on free ports, with
a temporary data directory, stopped (and its data deleted) by `stop()`.

Which server runs (the first that applies):
1. the `command` given, or the `PIGEONHOLE_COMMAND` environment variable (a shell-style
   command line, such as `npx pigeonhole` or `node /opt/pigeonhole/bin/pigeonhole.js`);
2. a clone of the Pigeonhole repository in the current directory or above it
   (`node bin/pigeonhole.js`, which runs the sources through tsx);
3. the npm package installed in a `node_modules` of the current directory or above it;
4. a `pigeonhole` command on the PATH.
The options `--http-port 0 --smtp-port 0 --host 127.0.0.1 --data-dir <dir>` are added to the
command, then the real ports are read from the server's start message.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Deque, List, Mapping, Optional, Sequence, Tuple, Union

from .client import Pigeonhole

_LISTENING = re.compile(r"Pigeonhole listening on (https?://\S+)")
_SMTP = re.compile(r"SMTP capture:\s+smtps?://(\S+):(\d+)")


class SandboxError(RuntimeError):
    """The sandbox could not be found or did not start; the message says why and what it printed."""


def find_command(start: Optional[Path] = None) -> List[str]:
    """The command line that runs a Pigeonhole server (see the module's docstring), or SandboxError."""
    configured = os.environ.get("PIGEONHOLE_COMMAND", "").strip()
    if configured:
        return shlex.split(configured)
    node = shutil.which("node")
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if node and _is_clone(folder):
            return [node, str(folder / "bin" / "pigeonhole.js")]
        installed = folder / "node_modules" / "pigeonhole" / "bin" / "pigeonhole.js"
        if node and installed.is_file():
            return [node, str(installed)]
    on_path = shutil.which("pigeonhole")
    if on_path:
        return [on_path]
    raise SandboxError(
        "no Pigeonhole server found to start: set PIGEONHOLE_URL to a running sandbox, or "
        "PIGEONHOLE_COMMAND to the command that starts one (such as 'npx pigeonhole'), or run "
        "from a clone of the repository or a project with the npm package installed"
        + ("" if node else " (and Node.js is not on the PATH)")
    )


def _is_clone(folder: Path) -> bool:
    if not (folder / "server" / "main.ts").is_file() or not (folder / "node_modules" / "tsx").is_dir():
        return False
    try:
        return json.loads((folder / "package.json").read_text(encoding="utf-8")).get("name") == "pigeonhole"
    except (OSError, ValueError):
        return False


class Sandbox:
    """A running sandbox this process started: `url`, `smtp` (host, port), `client`, `data_dir`."""

    def __init__(
        self, process: "subprocess.Popen[str]", url: str, smtp: Tuple[str, int], data_dir: Path, owns_data: bool, output: Deque[str], auth: Optional[str]
    ) -> None:
        self.process = process
        self.url = url
        self.smtp = smtp
        self.data_dir = data_dir
        self.client = Pigeonhole(url, auth=auth, smtp=smtp)
        self._owns_data = owns_data
        self._output = output

    def __repr__(self) -> str:
        return f"<Sandbox {self.url} smtp {self.smtp[0]}:{self.smtp[1]} pid {self.process.pid}>"

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def output(self) -> str:
        """The last lines the server printed."""
        return "\n".join(self._output)

    def stop(self, timeout: float = 15.0) -> None:
        """Stops the server (SIGTERM, then a kill after `timeout` s) and deletes a temporary data directory."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._owns_data:
            shutil.rmtree(self.data_dir, ignore_errors=True)


def start_sandbox(
    command: Union[str, Sequence[str], None] = None,
    data_dir: Union[str, Path, None] = None,
    args: Sequence[str] = (),
    env: Optional[Mapping[str, str]] = None,
    auth: Optional[str] = None,
    startup_timeout: float = 60.0,
) -> Sandbox:
    """Starts a sandbox on free ports of 127.0.0.1 and answers once /readyz does.

    `data_dir` defaults to a new temporary directory, deleted by `stop()`; `args` are more
    server options (`--config my-config.json`); `auth` (`user:password`) gives the sandbox a
    login, which its `client` uses (as does a PIGEONHOLE_AUTH in the environment). `startup_timeout` only bounds a server that
    never starts.
    """
    argv = shlex.split(command) if isinstance(command, str) else list(command) if command else find_command()
    owns_data = data_dir is None
    folder = Path(tempfile.mkdtemp(prefix="pigeonhole-")) if data_dir is None else Path(data_dir)
    argv += ["--http-port", "0", "--smtp-port", "0", "--host", "127.0.0.1", "--data-dir", str(folder), *args]
    if auth:
        argv += ["--auth", auth]
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=dict(env) if env is not None else None,
        )
    except OSError as error:
        if owns_data:
            shutil.rmtree(folder, ignore_errors=True)
        raise SandboxError(f"cannot run {shlex.join(argv)}: {error}") from error

    output: Deque[str] = collections.deque(maxlen=200)
    lines: "queue.Queue[Optional[str]]" = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line.rstrip("\n"))
            lines.put(line)
        lines.put(None)

    # The reader keeps draining the server's output for its whole life, so it never blocks on a full pipe.
    threading.Thread(target=read, name=f"pigeonhole-{process.pid}", daemon=True).start()

    def fail(reason: str) -> SandboxError:
        if process.poll() is None:
            process.kill()
            process.wait()
        if owns_data:
            shutil.rmtree(folder, ignore_errors=True)
        printed = "\n".join(output)
        return SandboxError(f"{reason}: {shlex.join(argv)}" + (f"\n{printed}" if printed else ""))

    deadline = time.monotonic() + startup_timeout
    url: Optional[str] = None
    smtp: Optional[Tuple[str, int]] = None
    while url is None or smtp is None:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise fail(f"the sandbox did not say where it listens within {startup_timeout:g} s") from None
        if line is None:
            process.wait()
            raise fail(f"the sandbox exited with status {process.returncode} before it listened")
        listening = _LISTENING.search(line)
        if listening:
            url = listening.group(1)
        mail = _SMTP.search(line)
        if mail:
            smtp = (mail.group(1).strip("[]"), int(mail.group(2)))
    # A PIGEONHOLE_AUTH in the server's environment gives it a login: the client logs in with it.
    auth = auth or (os.environ if env is None else env).get("PIGEONHOLE_AUTH") or None
    sandbox = Sandbox(process, url, smtp, folder, owns_data, output, auth)
    # It prints once it listens; /readyz also says the store is writable.
    while not sandbox.client.ready():
        if process.poll() is not None or time.monotonic() > deadline:
            raise fail("the sandbox listened but /readyz never answered 200")
        time.sleep(0.05)
    return sandbox
