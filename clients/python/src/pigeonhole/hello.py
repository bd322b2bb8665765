"""The live push's `hello` frame (docs/live-push.md), read with the standard library: one
WebSocket handshake on /api/events, the first text frame, then the connection is closed. It is
how a client given only the sandbox's URL learns the sandbox's SMTP port."""

from __future__ import annotations

import base64
import json
import os
import socket
import ssl
import struct
import urllib.parse
from typing import Any, BinaryIO, Dict, Optional, Tuple

from .errors import PigeonholeError, SandboxUnreachable

_TEXT, _CLOSE = 0x1, 0x8


def read_hello(url: str, authorization: Optional[str], timeout: float = 10.0) -> Dict[str, Any]:
    """The `data` of the hello frame: `{server_time, total, smtp_port}`."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or "localhost"
    secure = parts.scheme == "https"
    port = parts.port or (443 if secure else 80)
    try:
        raw = socket.create_connection((host, port), timeout=timeout)
    except OSError as error:
        raise SandboxUnreachable(f"{url}/api/events", error.strerror or error) from None
    with raw:
        connection = ssl.create_default_context().wrap_socket(raw, server_hostname=host) if secure else raw
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {parts.path.rstrip('/')}/api/events HTTP/1.1",
            f"Host: {host if ':' not in host else f'[{host}]'}{f':{parts.port}' if parts.port else ''}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
        if authorization:
            lines.append(f"Authorization: {authorization}")
        connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        stream = connection.makefile("rb")
        status = stream.readline().split(b" ", 2)
        while stream.readline() not in (b"\r\n", b""):
            pass
        if len(status) < 2 or status[1] != b"101":
            code = int(status[1]) if len(status) > 1 and status[1].isdigit() else 0
            raise PigeonholeError(code, None, f"the live push at {url}/api/events refused the connection ({code})")
        while True:
            opcode, payload = _frame(stream)
            if opcode == _CLOSE:
                raise PigeonholeError(0, None, f"the live push at {url}/api/events closed before its hello frame")
            if opcode == _TEXT:
                frame = json.loads(payload)
                if frame.get("type") == "hello":
                    return dict(frame["data"])


def _frame(stream: BinaryIO) -> Tuple[int, bytes]:
    head = _exactly(stream, 2)
    opcode, length = head[0] & 0x0F, head[1] & 0x7F
    if length == 126:
        length = struct.unpack(">H", _exactly(stream, 2))[0]
    elif length == 127:
        length = struct.unpack(">Q", _exactly(stream, 8))[0]
    mask = _exactly(stream, 4) if head[1] & 0x80 else None
    payload = _exactly(stream, length)
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return opcode, payload


def _exactly(stream: BinaryIO, size: int) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise PigeonholeError(0, None, "the live push connection ended in the middle of a frame")
    return data
