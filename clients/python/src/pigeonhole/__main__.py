"""`python3 -m pigeonhole run [--command CMD] -- COMMAND...`: starts a sandbox on free ports with a
temporary data directory, runs COMMAND with PIGEONHOLE_URL and PIGEONHOLE_SMTP_PORT set to it,
stops the sandbox, and exits with COMMAND's status. For a suite that should share one sandbox
between processes (pytest -n 4 against one server):

    python3 -m pigeonhole run -- python3 -m pytest -n 4
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from typing import List, Optional

from .sandbox import SandboxError, start_sandbox


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m pigeonhole", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="action", required=True)
    run = commands.add_parser("run", help="run a command against a sandbox started for it")
    run.add_argument("--command", default=None, help="the command that starts the server (default: $PIGEONHOLE_COMMAND, else found)")
    run.add_argument("program", nargs=argparse.REMAINDER, help="the command to run, after --")
    args = parser.parse_args(argv)
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program:
        parser.error("give the command to run after --")
    try:
        sandbox = start_sandbox(args.command)
    except SandboxError as error:
        print(f"pigeonhole: {error}", file=sys.stderr)
        return 2
    with sandbox:
        print(f"pigeonhole: sandbox at {sandbox.url}, SMTP {sandbox.smtp[0]}:{sandbox.smtp[1]}", file=sys.stderr, flush=True)
        env = {**os.environ, "PIGEONHOLE_URL": sandbox.url, "PIGEONHOLE_SMTP_PORT": str(sandbox.smtp[1])}
        try:
            return subprocess.call(program, env=env)
        except OSError as error:
            print(f"pigeonhole: cannot run {program[0]}: {error}", file=sys.stderr)
            return 127


if __name__ == "__main__":
    sys.exit(main())
