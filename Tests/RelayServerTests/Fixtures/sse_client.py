"""A blocking `GET /v1/stream` subscriber over HTTP/1.1 and TLS, for the crash loop and the soak.

The relay answers an HTTP/1.1 event stream with chunked framing; this undoes the chunks, then the
Server-Sent Events framing, and yields one `Event` per event (comments such as `: ping` and the
`retry:` line are skipped). Standard library only.
"""
import json
import socket
import ssl


class Event:
    __slots__ = ("id", "type", "data")

    def __init__(self, event_id, event_type, data):
        self.id = event_id
        self.type = event_type
        self.data = data

    def json(self):
        return json.loads(self.data)


class StreamError(Exception):
    """The relay answered something other than a `200` event stream."""


class Subscription:
    """One open `GET /v1/stream` connection. `query` is the query string without `?` (may be empty);
    `last_id`, when given, is sent as `Last-Event-ID`."""

    def __init__(self, port, cafile, key, query="", last_id=None, timeout=10.0):
        context = ssl.create_default_context(cafile=cafile)
        raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        try:
            self.sock = context.wrap_socket(raw, server_hostname="localhost")
        except Exception:
            raw.close()
            raise
        path = "/v1/stream" + ("?" + query if query else "")
        lines = ["GET %s HTTP/1.1" % path, "Host: localhost", "Authorization: Bearer " + key,
                 "Accept: text/event-stream"]
        if last_id is not None:
            lines.append("Last-Event-ID: %d" % last_id)
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.raw = b""  # received bytes not yet de-chunked
        self.body = b""  # de-chunked bytes not yet parsed as events
        self.ended = False
        head = self._read_until(b"\r\n\r\n")
        status_line, _, header_text = head.partition(b"\r\n")
        parts = status_line.split(b" ")
        if len(parts) < 2 or parts[1] != b"200":
            self.close()
            raise StreamError("stream answered %r" % status_line.decode(errors="replace"))
        headers = header_text.lower()
        if b"transfer-encoding: chunked" not in headers:
            self.close()
            raise StreamError("stream not chunked: %r" % headers)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _recv(self):
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("stream closed by the relay")
        self.raw += data

    def _read_until(self, marker):
        while marker not in self.raw:
            self._recv()
        head, self.raw = self.raw.split(marker, 1)
        return head

    def _dechunk(self):
        """Moves every complete chunk from `raw` to `body`."""
        while True:
            line_end = self.raw.find(b"\r\n")
            if line_end < 0:
                return
            size = int(self.raw[:line_end].split(b";")[0], 16)
            if size == 0:
                self.ended = True
                return
            if len(self.raw) < line_end + 2 + size + 2:
                return
            self.body += self.raw[line_end + 2:line_end + 2 + size]
            self.raw = self.raw[line_end + 2 + size + 2:]

    def events(self):
        """Yields events until the connection ends (then raises ConnectionError) or the socket's
        timeout passes with nothing received (socket.timeout)."""
        while True:
            self._dechunk()
            while b"\n\n" in self.body:
                block, self.body = self.body.split(b"\n\n", 1)
                event_id, event_type, data = None, "message", []
                for line in block.split(b"\n"):
                    if line.startswith(b"id:"):
                        event_id = int(line[3:].strip())
                    elif line.startswith(b"event:"):
                        event_type = line[6:].strip().decode()
                    elif line.startswith(b"data:"):
                        data.append(line[5:].lstrip(b" ").decode())
                if data:
                    yield Event(event_id, event_type, "\n".join(data))
            if self.ended:
                raise ConnectionError("stream ended by the relay")
            self._recv()
