"""Which server `start_sandbox` runs (no server is started here), and the failure report."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pigeonhole import Pigeonhole, SandboxError
from pigeonhole.sandbox import find_command


def test_pigeonhole_command_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PIGEONHOLE_COMMAND", "npx --no-install pigeonhole --config 'my config.json'")
    assert find_command(tmp_path) == ["npx", "--no-install", "pigeonhole", "--config", "my config.json"]


def test_an_installed_npm_package_is_found_from_a_subfolder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PIGEONHOLE_COMMAND", raising=False)
    entry = tmp_path / "node_modules" / "pigeonhole" / "bin" / "pigeonhole.js"
    entry.parent.mkdir(parents=True)
    entry.write_text("")
    (tmp_path / "tests" / "deep").mkdir(parents=True)
    assert find_command(tmp_path / "tests" / "deep") == [shutil.which("node"), str(entry)]


def test_this_clone_is_found_from_inside_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PIGEONHOLE_COMMAND", raising=False)
    here = Path(__file__).resolve().parent
    root = next(p for p in here.parents if (p / "server" / "main.ts").is_file())
    assert find_command(here) == [shutil.which("node"), str(root / "bin" / "pigeonhole.js")]


def test_nothing_to_start_says_what_to_set(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PIGEONHOLE_COMMAND", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SandboxError, match="set PIGEONHOLE_URL .* or PIGEONHOLE_COMMAND"):
        find_command(tmp_path)


FAILING = '''
def test_expects_two(pigeonhole, pigeonhole_inbox):
    pigeonhole.send_email("bulk-key", pigeonhole_inbox.address("ada"), "Only one", "<p>1</p>")
    pigeonhole_inbox.expect(count=2, within=0.2)
'''


def test_a_failed_test_reports_what_its_inbox_caught(pytester: pytest.Pytester, pigeonhole: Pigeonhole, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_inner=FAILING)
    monkeypatch.setenv("PIGEONHOLE_URL", pigeonhole.url)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*TooFewMessages: expected 2 email(s), 1 matched (Expected 2 messages matching the filters within 200 ms; 1 matched.)*",
            "*pigeonhole inbox http://127.0.0.1:*/?namespace=expects-two-*",
            "* api  'Only one' to ada+expects-two-*@example.com",
        ]
    )
