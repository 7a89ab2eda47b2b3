"""A small Language Server Protocol client over stdio, for tests that talk to a language server.

It speaks JSON-RPC with ``Content-Length`` framing to a server started as a
child process, sends requests one at a time and waits for their answers,
answers the server's own requests on the way (``workspace/configuration``
from the settings it was given, capability registrations and progress tokens
with ``null``), and keeps the diagnostics the server publishes.  Every wait
has a deadline; a request that misses it, a server that exits or answers with
an error, fails with the last lines the server wrote on stderr.  The server
is always stopped: :meth:`LanguageServer.close` (or leaving the ``with``
block) asks it to shut down and kills it if it does not.
"""

from __future__ import annotations

import collections
import contextlib
import json
import queue
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Final, TypeAlias

__all__ = ["Json", "LanguageServer", "LspError"]

Json: TypeAlias = "bool | int | float | str | list[Json] | dict[str, Json] | None"
"""A JSON value, as :func:`json.loads` returns it."""

_METHOD_NOT_FOUND: Final = -32601
_STDERR_LINES: Final = 40


class LspError(AssertionError):
    """The server failed: it answered with an error, missed a deadline or exited."""


class _Closed:
    """What the reading thread queues when the server's output ends."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class LanguageServer:
    """A language server started by ``command``, initialized on the workspace ``root``.

    ``settings`` answers the server's ``workspace/configuration`` requests:
    each item's ``section`` (``"python"``, ``"basedpyright.analysis"``…) is
    looked up in it, ``null`` when absent.  ``timeout`` is the deadline of
    each request, in seconds.
    """

    def __init__(
        self,
        command: Sequence[str],
        root: Path,
        settings: Mapping[str, Json] | None = None,
        timeout: float = 120.0,
    ) -> None:
        self.timeout = timeout
        self.diagnostics: dict[str, list[Json]] = {}
        """The last diagnostics the server published, by document URI."""
        self._settings = dict(settings or {})
        self._next_id = 0
        self._messages: queue.Queue[dict[str, Json] | _Closed] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self._process = subprocess.Popen(
            list(command),
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self._process.stdout is not None and self._process.stderr is not None
        self._stdout_reader = threading.Thread(
            target=self._read_messages, args=(self._process.stdout,), daemon=True
        )
        self._stderr_reader = threading.Thread(
            target=self._read_stderr, args=(self._process.stderr,), daemon=True
        )
        self._stdout_reader.start()
        self._stderr_reader.start()
        try:
            self.request(
                "initialize",
                {
                    "processId": None,
                    "rootUri": root.as_uri(),
                    "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                    "capabilities": {
                        "workspace": {"configuration": True, "workspaceFolders": True},
                        "textDocument": {
                            "hover": {"contentFormat": ["markdown", "plaintext"]},
                            "completion": {"completionItem": {"snippetSupport": False}},
                            "publishDiagnostics": {},
                        },
                        "window": {"workDoneProgress": True},
                    },
                },
            )
            self.notify("initialized", {})
        except BaseException:
            self._stop()
            raise

    # The protocol.

    def request(self, method: str, params: Json, timeout: float | None = None) -> Json:
        """Send a request and return its result, serving the server until it comes."""
        self._next_id += 1
        ident = self._next_id
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            message = self._receive(deadline, method)
            if "method" in message:
                self._serve(message)
            elif message.get("id") == ident:
                if "error" in message:
                    raise self._failure(f"{method} failed: {message['error']}")
                return message.get("result")

    def notify(self, method: str, params: Json) -> None:
        """Send a notification."""
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_for_diagnostics(self, uri: str, timeout: float | None = None) -> list[Json]:
        """Wait for the server to publish diagnostics for ``uri``, and return them."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while uri not in self.diagnostics:
            message = self._receive(deadline, f"diagnostics of {uri}")
            if "method" in message:
                self._serve(message)
        return self.diagnostics[uri]

    # The requests the tests make.

    def open(self, path: Path, text: str) -> str:
        """Open ``path`` in the server with ``text`` as its content; return its URI."""
        uri = path.as_uri()
        self.diagnostics.pop(uri, None)
        document: Json = {"uri": uri, "languageId": "python", "version": 1, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": document})
        return uri

    def hover(self, uri: str, line: int, character: int) -> str:
        """The hover text at a position (0-based line, UTF-16 column, as LSP counts), or ``""``."""
        result = self.request("textDocument/hover", _position(uri, line, character))
        if not isinstance(result, dict):
            return ""
        contents = result.get("contents")
        parts = contents if isinstance(contents, list) else [contents]
        texts: list[str] = []
        for part in parts:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(value := part.get("value"), str):
                texts.append(value)
        return "\n".join(texts)

    def completion(self, uri: str, line: int, character: int) -> list[str]:
        """The labels of the completion items at a position (as :meth:`hover` takes it)."""
        result = self.request("textDocument/completion", _position(uri, line, character))
        items = result.get("items") if isinstance(result, dict) else result
        if not isinstance(items, list):
            return []
        return [
            label
            for item in items
            if isinstance(item, dict) and isinstance(label := item.get("label"), str)
        ]

    def close(self) -> None:
        """Shut the server down (``shutdown``, then ``exit``), killing it if it will not stop."""
        try:
            if self._process.poll() is None:
                self.request("shutdown", None, timeout=10.0)
                self.notify("exit", None)
                self._process.wait(timeout=10.0)
        finally:
            self._stop()

    def __enter__(self) -> LanguageServer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if error is None:
            self.close()
        else:
            self._stop()  # the failure is the news: no polite shutdown

    # The plumbing.

    def _send(self, message: dict[str, Json]) -> None:
        body = json.dumps(message).encode("utf-8")
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            stdin.flush()
        except OSError as error:
            raise self._failure(f"cannot send {message.get('method')!r}: {error}") from error

    def _receive(self, deadline: float, waiting_for: str) -> dict[str, Json]:
        try:
            message = self._messages.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise self._failure(f"no answer to {waiting_for} in time") from None
        if isinstance(message, _Closed):
            self._messages.put(message)  # every later wait fails the same way
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=5.0)  # for its status and its last words
            raise self._failure(f"waiting for {waiting_for}: {message.reason}")
        return message

    def _serve(self, message: dict[str, Json]) -> None:
        """Answer a request of the server; note what a notification says."""
        method = message["method"]
        params = message.get("params")
        if "id" not in message:
            if method == "textDocument/publishDiagnostics" and isinstance(params, dict):
                uri, found = params.get("uri"), params.get("diagnostics")
                if isinstance(uri, str) and isinstance(found, list):
                    self.diagnostics[uri] = found
            return
        answer: dict[str, Json] = {"jsonrpc": "2.0", "id": message["id"]}
        if method == "workspace/configuration" and isinstance(params, dict):
            items = params.get("items")
            answer["result"] = [
                self._settings.get(section)
                if isinstance(item, dict) and isinstance(section := item.get("section"), str)
                else None
                for item in (items if isinstance(items, list) else [])
            ]
        elif method in {
            "client/registerCapability",
            "client/unregisterCapability",
            "window/workDoneProgress/create",
        }:
            answer["result"] = None
        else:
            answer["error"] = {"code": _METHOD_NOT_FOUND, "message": f"not handled: {method}"}
        self._send(answer)

    def _read_messages(self, stream: IO[bytes]) -> None:
        """Queue each message of the server's output (the reading thread)."""
        reason = "the server closed its output"
        try:
            while True:
                length = None
                while (header := stream.readline()) not in {b"\r\n", b"\n", b""}:
                    name, _, value = header.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                if not header:
                    break
                if length is None:
                    raise ValueError("a message without a Content-Length header")
                message: Json = json.loads(stream.read(length))
                if not isinstance(message, dict):
                    raise ValueError(f"not a JSON-RPC message: {message!r}")
                self._messages.put(message)
        except (OSError, ValueError) as error:
            reason = f"unreadable output from the server: {error!r}"
        self._messages.put(_Closed(reason))

    def _read_stderr(self, stream: IO[bytes]) -> None:
        for line in stream:
            self._stderr.append(line.decode("utf-8", "replace").rstrip())

    def _failure(self, what: str) -> LspError:
        status = self._process.poll()
        if status is None:
            state = "is still running"
        else:
            state = f"exited with status {status}"
            self._stderr_reader.join(timeout=5.0)  # the rest of its stderr
        tail = "\n".join(self._stderr) or "(nothing)"
        return LspError(f"{what} (the server {state}; its stderr ends with:\n{tail})")

    def _stop(self) -> None:
        """Kill the server if it still runs, and release its pipes and threads."""
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        self._stdout_reader.join(timeout=5.0)
        self._stderr_reader.join(timeout=5.0)
        for stream in (self._process.stdin, self._process.stdout, self._process.stderr):
            if stream is not None:
                stream.close()


def _position(uri: str, line: int, character: int) -> Json:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
