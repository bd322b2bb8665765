"""The Python examples of the docs use only what the package has: every `pigeonhole_inbox.x`,
`pigeonhole.x` and `mail.x` they call or read exists (the flows they show run for real in
examples/django)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pigeonhole import Inbox, Message, Pigeonhole

ROOT = Path(__file__).resolve().parents[3]
PAGES = ["README.md", "docs/testing.md", "clients/python/README.md"]
OWNERS = {"pigeonhole_inbox": Inbox, "inbox": Inbox, "pigeonhole": Pigeonhole, "ph": Pigeonhole, "mail": Message}


def python_blocks(page: str) -> list:
    return re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("page", PAGES)
def test_the_python_examples_use_what_the_package_has(page: str) -> None:
    used = {(owner, name) for block in python_blocks(page) for owner, name in re.findall(r"(?<![.\w])(pigeonhole_inbox|inbox|pigeonhole|ph|mail)\.(\w+)", block)}
    assert used, f"no example in {page}"
    missing = sorted(f"{owner}.{name}" for owner, name in used if not hasattr(OWNERS[owner], name) and name != "url")
    assert missing == []
