#!/usr/bin/env python3
"""HTTP/2 conformance suite for ActivityRelay's listener (RFC 9113, RFC 7541).

Each case opens its own TLS connection (ALPN h2, certificate verified against --cafile for the
server name "localhost"), sends frames (hand-built bytes, so that malformed frames can be sent on
purpose), reads the server's frames with a timeout (parsed by `hyperframe`, header blocks decoded by
`hpack`), and checks the answer against what RFC 9113 requires. The well-formed request cases are
driven by the `h2` package's client state machine, which also rejects a server that breaks the
protocol in its responses.

Output: one line per case, `PASS name` or `FAIL name: expected ..., got ...`, then exactly
`N passed, M failed`. Exit status 1 if any case failed, 2 on bad arguments. Notes that explain a
result (for instance a limit the server does not advertise) go to stderr.

Every read has a deadline (READ_TIMEOUT) and the whole suite stops at SUITE_BUDGET seconds.
Requires: Python 3.9+, h2, hpack, hyperframe (`pip install h2`).
"""

from __future__ import annotations

import argparse
import os
import socket
import ssl
import struct
import sys
import time
from typing import Callable

try:
    import h2.config
    import h2.connection
    import h2.events
    import h2.exceptions
    from hpack import Decoder, Encoder
    from hpack.exceptions import HPACKError
    from hyperframe.exceptions import HyperframeError
    from hyperframe.frame import (
        ContinuationFrame,
        DataFrame,
        Frame,
        GoAwayFrame,
        HeadersFrame,
        PingFrame,
        RstStreamFrame,
        SettingsFrame,
        WindowUpdateFrame,
    )
except ImportError as missing:
    print(f"h2_conformance.py needs the h2 package (pip install h2, or apt-get install python3-h2): {missing}",
          file=sys.stderr)
    sys.exit(2)

READ_TIMEOUT = 3.0  # seconds any single expectation may wait for the server
QUIET_PERIOD = 0.5  # seconds of silence that count as "the server stopped sending"
SUITE_BUDGET = 50.0  # seconds for the whole suite: every wait is cut at this point, later cases fail fast

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

# Frame types (RFC 9113 section 6).
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
UNKNOWN_FRAME_TYPE = 0xFA

# Flags.
FLAG_ACK = 0x1
FLAG_END_STREAM = 0x1
FLAG_END_HEADERS = 0x4
FLAG_PADDED = 0x8

# Settings identifiers (RFC 9113 section 6.5.2).
HEADER_TABLE_SIZE = 0x1
ENABLE_PUSH = 0x2
MAX_CONCURRENT_STREAMS = 0x3
INITIAL_WINDOW_SIZE = 0x4
MAX_FRAME_SIZE = 0x5
MAX_HEADER_LIST_SIZE = 0x6

# Error codes (RFC 9113 section 7).
ERROR_NAMES = [
    "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
    "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR",
    "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
]
NO_ERROR, PROTOCOL_ERROR, FLOW_CONTROL_ERROR = 0x0, 0x1, 0x3
FRAME_SIZE_ERROR, REFUSED_STREAM, CANCEL, COMPRESSION_ERROR = 0x6, 0x7, 0x8, 0x9

MAX_WINDOW = 2**31 - 1
LARGEST_FRAME_LENGTH = 2**24 - 1


def error_name(code: int) -> str:
    return ERROR_NAMES[code] if 0 <= code < len(ERROR_NAMES) else f"0x{code:x}"


# --------------------------------------------------------------------------------------------
# Outcome plumbing


class CaseFailure(Exception):
    """A case's check did not hold; the message is `expected ..., got ...`."""


def fail(expected: str, got: str) -> None:
    raise CaseFailure(f"expected {expected}, got {got}")


def note(case: str, text: str) -> None:
    print(f"note {case}: {text}", file=sys.stderr, flush=True)


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


CLOSED = _Sentinel("CLOSED")  # the server closed the connection (EOF, reset, TLS close)
TIMEOUT = _Sentinel("TIMEOUT")  # nothing arrived before the deadline


# --------------------------------------------------------------------------------------------
# Frame and HPACK encoding by hand (so that broken frames can be built on purpose)


def frame(ftype: int, flags: int, stream_id: int, payload: bytes = b"") -> bytes:
    """Serializes one frame: 24-bit length, type, flags, 31-bit stream id, payload."""
    n = len(payload)
    return struct.pack(">BHBBI", n >> 16, n & 0xFFFF, ftype, flags, stream_id & 0x7FFFFFFF) + payload


def settings_frame(pairs: list[tuple[int, int]] = (), ack: bool = False) -> bytes:
    payload = b"".join(struct.pack(">HI", ident, value) for ident, value in pairs)
    return frame(SETTINGS, FLAG_ACK if ack else 0, 0, payload)


def ping_frame(data: bytes, ack: bool = False, stream_id: int = 0) -> bytes:
    return frame(PING, FLAG_ACK if ack else 0, stream_id, data)


def window_update_frame(stream_id: int, increment: int) -> bytes:
    return frame(WINDOW_UPDATE, 0, stream_id, struct.pack(">I", increment))


def rst_stream_frame(stream_id: int, code: int) -> bytes:
    return frame(RST_STREAM, 0, stream_id, struct.pack(">I", code))


def goaway_frame(last_stream_id: int, code: int) -> bytes:
    return frame(GOAWAY, 0, 0, struct.pack(">II", last_stream_id, code))


def priority_frame(stream_id: int, depends_on: int, weight: int = 16) -> bytes:
    return frame(PRIORITY, 0, stream_id, struct.pack(">IB", depends_on, weight - 1))


def headers_frame(stream_id: int, block: bytes, end_stream: bool = True, end_headers: bool = True,
                  pad: int | None = None) -> bytes:
    flags = (FLAG_END_STREAM if end_stream else 0) | (FLAG_END_HEADERS if end_headers else 0)
    payload = block
    if pad is not None:
        flags |= FLAG_PADDED
        payload = bytes([pad]) + block + bytes(pad)
    return frame(HEADERS, flags, stream_id, payload)


def continuation_frame(stream_id: int, block: bytes, end_headers: bool = True) -> bytes:
    return frame(CONTINUATION, FLAG_END_HEADERS if end_headers else 0, stream_id, block)


def data_frame(stream_id: int, data: bytes, end_stream: bool = True, pad: int | None = None) -> bytes:
    flags = FLAG_END_STREAM if end_stream else 0
    payload = data
    if pad is not None:
        flags |= FLAG_PADDED
        payload = bytes([pad]) + data + bytes(pad)
    return frame(DATA, flags, stream_id, payload)


def hpack_int(value: int, prefix_bits: int, first_byte_flags: int = 0) -> bytes:
    """RFC 7541 section 5.1 integer with an N-bit prefix."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first_byte_flags | value])
    out = bytearray([first_byte_flags | limit])
    value -= limit
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def hpack_literal(name: str, value: str) -> bytes:
    """Literal header field without indexing, new name, no Huffman (RFC 7541 section 6.2.2)."""
    n, v = name.encode(), value.encode()
    return b"\x00" + hpack_int(len(n), 7) + n + hpack_int(len(v), 7) + v


def raw_block(headers: list[tuple[str, str]]) -> bytes:
    """A header block that never touches the dynamic table, with names exactly as given."""
    return b"".join(hpack_literal(name, value) for name, value in headers)


def header_list_size(headers: list[tuple[str, str]]) -> int:
    """RFC 9113 section 6.5.2: name + value + 32 per field."""
    return sum(len(n.encode()) + len(v.encode()) + 32 for n, v in headers)


# --------------------------------------------------------------------------------------------
# Reading the server's frames


def describe(ev: object) -> str:
    if ev is CLOSED:
        return "connection closed"
    if ev is TIMEOUT:
        return "nothing"
    f = ev
    if isinstance(f, GoAwayFrame):
        debug = f.additional_data[:60].decode("utf-8", "replace") if f.additional_data else ""
        return f"GOAWAY({error_name(f.error_code)}, last_stream {f.last_stream_id & 0x7FFFFFFF}" + (
            f", {debug!r})" if debug else ")")
    if isinstance(f, RstStreamFrame):
        return f"RST_STREAM(stream {f.stream_id}, {error_name(f.error_code)})"
    if isinstance(f, HeadersFrame):
        status = dict(getattr(f, "headers", [])).get(":status")
        end = ", END_STREAM" if "END_STREAM" in f.flags else ""
        return f"HEADERS(stream {f.stream_id}" + (f", :status {status}" if status else "") + f"{end})"
    if isinstance(f, DataFrame):
        end = ", END_STREAM" if "END_STREAM" in f.flags else ""
        return f"DATA(stream {f.stream_id}, {len(f.data)} bytes{end})"
    if isinstance(f, SettingsFrame):
        return "SETTINGS ACK" if "ACK" in f.flags else "SETTINGS"
    if isinstance(f, PingFrame):
        return "PING ACK" if "ACK" in f.flags else "PING"
    if isinstance(f, WindowUpdateFrame):
        return f"WINDOW_UPDATE(stream {f.stream_id}, +{f.window_increment})"
    return f"{type(f).__name__}(stream {f.stream_id})"


def status_of(f: HeadersFrame) -> str | None:
    return dict(getattr(f, "headers", [])).get(":status")


class Connection:
    """One TLS connection to the server, with a frame reader and a few expectation helpers."""

    def __init__(self, suite: "Suite", auto_ack: bool = True) -> None:
        self.suite = suite
        self.auto_ack = auto_ack  # answer the server's SETTINGS and PING like a normal client
        raw = socket.create_connection((suite.host, suite.port), timeout=self.timeout())
        try:
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.sock = suite.tls.wrap_socket(raw, server_hostname=suite.server_name)
        except BaseException:
            raw.close()
            raise
        alpn = self.sock.selected_alpn_protocol()
        if alpn != "h2":
            self.close()
            fail("ALPN protocol h2", repr(alpn))
        self.buf = bytearray()
        self.eof = False
        self.encoder = Encoder()
        self.decoder = Decoder()
        self.server_settings: dict[int, int] = {}
        self.got_server_settings = False
        self.first_frame: str | None = None
        self.settings_acks = 0
        self.seen: list[str] = []

    # -- I/O

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def timeout(self) -> float:
        """Seconds a connect or write may block: READ_TIMEOUT, cut at the suite's deadline."""
        return max(0.1, min(READ_TIMEOUT, self.suite.deadline - time.monotonic()))

    def send(self, *chunks: bytes) -> None:
        """Writes bytes; a failed write is not an error here, the next read reports the close."""
        try:
            self.sock.settimeout(self.timeout())
            self.sock.sendall(b"".join(chunks))
        except (OSError, ssl.SSLError):
            pass

    def deadline(self, seconds: float = READ_TIMEOUT) -> float:
        return min(time.monotonic() + seconds, self.suite.deadline)

    def _fill(self, deadline: float) -> bool:
        """Reads more bytes into the buffer; False on timeout. Sets `eof` on close."""
        if self.eof:
            return True
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        self.sock.settimeout(remaining)
        try:
            data = self.sock.recv(65536)
        except (socket.timeout, TimeoutError):
            return False
        except (OSError, ssl.SSLError):
            data = b""
        if not data:
            self.eof = True
        self.buf += data
        return True

    def recv_raw(self, deadline: float) -> object:
        """Whatever bytes are available (for the h2-driven cases): bytes, CLOSED or TIMEOUT."""
        if not self.buf:
            if not self._fill(deadline):
                return TIMEOUT
        if self.buf:
            data = bytes(self.buf)
            self.buf.clear()
            return data
        return CLOSED

    def _read_one(self, deadline: float) -> object:
        while len(self.buf) < 9:
            if self.eof:
                return CLOSED
            if not self._fill(deadline):
                return TIMEOUT
        try:
            f, length = Frame.parse_frame_header(memoryview(bytes(self.buf[:9])))
        except HyperframeError as err:
            fail("a well-formed frame header from the server", f"{err}")
        while len(self.buf) < 9 + length:
            if self.eof:
                return CLOSED
            if not self._fill(deadline):
                return TIMEOUT
        body = bytes(self.buf[9:9 + length])
        del self.buf[:9 + length]
        try:
            f.parse_body(memoryview(body))
        except HyperframeError as err:
            fail("a well-formed frame from the server", f"{type(f).__name__} rejected by hyperframe: {err}")
        return f

    def read(self, deadline: float) -> object:
        """The next frame (header blocks reassembled and decoded into `.headers`), CLOSED or TIMEOUT."""
        f = self._read_one(deadline)
        if isinstance(f, HeadersFrame):
            block = bytearray(f.data)
            end = "END_HEADERS" in f.flags
            while not end:
                c = self._read_one(deadline)
                if not isinstance(c, ContinuationFrame) or c.stream_id != f.stream_id:
                    fail("CONTINUATION after a HEADERS without END_HEADERS", describe(c))
                block += c.data
                end = "END_HEADERS" in c.flags
            try:
                f.headers = list(self.decoder.decode(bytes(block)))
            except HPACKError as err:
                fail("a decodable response header block", f"{type(err).__name__}: {err}")
        if not isinstance(f, _Sentinel):
            self._note(f)
        return f

    def _note(self, f: Frame) -> None:
        self.seen.append(describe(f))
        if self.suite.verbose:
            print(f"  <- {describe(f)}", file=sys.stderr, flush=True)
        if self.first_frame is None:
            self.first_frame = describe(f)
        if isinstance(f, SettingsFrame):
            if "ACK" in f.flags:
                self.settings_acks += 1
            else:
                self.got_server_settings = True
                self.server_settings.update(f.settings)
                if HEADER_TABLE_SIZE in f.settings:
                    self.encoder.header_table_size = f.settings[HEADER_TABLE_SIZE]
                if self.auto_ack:
                    self.send(settings_frame(ack=True))
        elif isinstance(f, PingFrame) and "ACK" not in f.flags and self.auto_ack:
            self.send(ping_frame(f.opaque_data, ack=True))

    def saw(self) -> str:
        recent = self.seen[-6:]
        return f" (last frames: {', '.join(recent)})" if recent else " (no frames at all)"

    # -- setup

    def start(self, settings: list[tuple[int, int]] = ()) -> None:
        """Sends the client preface and our SETTINGS, then reads until the server's SETTINGS."""
        self.send(PREFACE + settings_frame(list(settings)))
        dl = self.deadline()
        while not self.got_server_settings:
            ev = self.read(dl)
            if isinstance(ev, _Sentinel):
                fail("the server's SETTINGS", describe(ev))

    @property
    def max_frame_size(self) -> int:
        return self.server_settings.get(MAX_FRAME_SIZE, 16384)

    def request_headers(self, method: str = "GET", path: str | None = None,
                        extra: list[tuple[str, str]] = ()) -> list[tuple[str, str]]:
        return [
            (":method", method),
            (":scheme", "https"),
            (":authority", f"{self.suite.server_name}:{self.suite.port}"),
            (":path", path or self.suite.path),
        ] + list(extra)

    def encode(self, headers: list[tuple[str, str]]) -> bytes:
        return self.encoder.encode(headers)

    # -- expectations

    def expect_goaway(self, code: int, allow_close: bool = False) -> None:
        want = f"GOAWAY {error_name(code)}" + (" or connection close" if allow_close else "")
        dl = self.deadline()
        while True:
            ev = self.read(dl)
            if ev is CLOSED:
                if allow_close:
                    return
                fail(want, "connection closed without GOAWAY" + self.saw())
            if ev is TIMEOUT:
                fail(want, f"no GOAWAY within {READ_TIMEOUT:g}s" + self.saw())
            if isinstance(ev, GoAwayFrame):
                if ev.error_code == code:
                    return
                fail(want, describe(ev))
            if isinstance(ev, RstStreamFrame) and ev.error_code != NO_ERROR:
                fail(want, describe(ev))

    def expect_stream_error(self, stream_id: int, codes: tuple[int, ...]) -> None:
        """RST_STREAM on the stream with one of `codes`, or (RFC 9113 5.4.1) GOAWAY with one of them."""
        names = " or ".join(error_name(c) for c in codes)
        want = f"RST_STREAM(stream {stream_id}, {names}) or GOAWAY {names}"
        dl = self.deadline()
        while True:
            ev = self.read(dl)
            if ev is CLOSED:
                fail(want, "connection closed without GOAWAY" + self.saw())
            if ev is TIMEOUT:
                fail(want, f"nothing within {READ_TIMEOUT:g}s" + self.saw())
            if isinstance(ev, GoAwayFrame):
                if ev.error_code in codes:
                    return
                fail(want, describe(ev))
            if isinstance(ev, RstStreamFrame) and ev.stream_id == stream_id:
                if ev.error_code in codes:
                    return
                fail(want, describe(ev))
            if isinstance(ev, HeadersFrame) and ev.stream_id == stream_id:
                fail(want, f"a response with :status {status_of(ev)}")

    def expect_response(self, stream_id: int) -> tuple[str, bytes]:
        """The final :status and body of a stream (windows replenished as DATA arrives); fails on
        reset, GOAWAY, close or timeout."""
        want = f"a complete response on stream {stream_id}"
        status: str | None = None
        body = bytearray()
        dl = self.deadline()
        while True:
            ev = self.read(dl)
            if isinstance(ev, _Sentinel):
                fail(want, describe(ev) + self.saw())
            if isinstance(ev, GoAwayFrame) or (isinstance(ev, RstStreamFrame) and ev.stream_id == stream_id):
                fail(want, describe(ev))
            if ev.stream_id != stream_id:
                continue
            if isinstance(ev, HeadersFrame):
                s = status_of(ev)
                if status is None and s is not None and s.startswith("1"):
                    continue  # informational response
                if status is None:
                    if s is None:
                        fail(want, "a HEADERS frame without :status")
                    status = s
                if "END_STREAM" in ev.flags:
                    return status, bytes(body)
            elif isinstance(ev, DataFrame):
                if status is None:
                    fail(want, "DATA before the response HEADERS")
                body += ev.data
                n = ev.flow_controlled_length
                ended = "END_STREAM" in ev.flags
                if n:
                    self.send(window_update_frame(0, n), b"" if ended else window_update_frame(stream_id, n))
                if ended:
                    return status, bytes(body)

    def expect_alive(self) -> None:
        """PING round trip: the connection is still usable (and nothing was escalated to GOAWAY)."""
        payload = os.urandom(8)
        self.send(ping_frame(payload))
        dl = self.deadline()
        while True:
            ev = self.read(dl)
            if isinstance(ev, _Sentinel):
                fail("PING ACK (connection still open)", describe(ev) + self.saw())
            if isinstance(ev, GoAwayFrame):
                fail("PING ACK (connection still open)", describe(ev))
            if isinstance(ev, PingFrame) and "ACK" in ev.flags and ev.opaque_data == payload:
                return


class H2Session:
    """Well-formed requests through the `h2` client state machine, on a Connection's socket."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
        self.h2 = h2.connection.H2Connection(config=config)
        self.h2.initiate_connection()
        conn.send(self.h2.data_to_send())

    def request(self, method: str = "GET", path: str | None = None, body: bytes | None = None) -> tuple[str, bytes]:
        conn = self.conn
        sid = self.h2.get_next_available_stream_id()
        headers = conn.request_headers(method, path)
        if body is not None:
            headers.append(("content-length", str(len(body))))
        self.h2.send_headers(sid, headers, end_stream=body is None)
        if body is not None:
            self.h2.send_data(sid, body, end_stream=True)
        conn.send(self.h2.data_to_send())
        want = f"a complete response on stream {sid}"
        status: str | None = None
        data = bytearray()
        dl = conn.deadline()
        while True:
            chunk = conn.recv_raw(dl)
            if isinstance(chunk, _Sentinel):
                fail(want, describe(chunk))
            try:
                events = self.h2.receive_data(chunk)
            except h2.exceptions.ProtocolError as err:
                fail("frames the h2 client accepts", f"h2 rejected the server's frames: {type(err).__name__}: {err}")
            for ev in events:
                if isinstance(ev, h2.events.ResponseReceived) and ev.stream_id == sid:
                    status = dict(ev.headers).get(":status")
                elif isinstance(ev, h2.events.DataReceived) and ev.stream_id == sid:
                    data += ev.data
                    self.h2.acknowledge_received_data(ev.flow_controlled_length, sid)
                elif isinstance(ev, h2.events.StreamReset) and ev.stream_id == sid:
                    fail(want, f"RST_STREAM(stream {sid}, {error_name(int(ev.error_code))})")
                elif isinstance(ev, h2.events.ConnectionTerminated):
                    fail(want, f"GOAWAY({error_name(int(ev.error_code))})")
                elif isinstance(ev, h2.events.StreamEnded) and ev.stream_id == sid:
                    conn.send(self.h2.data_to_send())
                    if status is None:
                        fail(want, "stream ended without a response")
                    return status, bytes(data)
            conn.send(self.h2.data_to_send())


# --------------------------------------------------------------------------------------------
# The suite


class Suite:
    def __init__(self, args: argparse.Namespace) -> None:
        self.host = args.host
        self.port = args.port
        self.path = args.path
        self.post_path = args.post_path or args.path
        self.server_name = args.server_name
        self.verbose = args.verbose
        self.tls = ssl.create_default_context(cafile=args.cafile)
        self.tls.minimum_version = ssl.TLSVersion.TLSv1_2
        self.tls.set_alpn_protocols(["h2"])
        self.deadline = time.monotonic() + SUITE_BUDGET

    def connect(self, auto_ack: bool = True) -> Connection:
        return Connection(self, auto_ack=auto_ack)


CASES: list[tuple[str, Callable[[Suite, Connection], None], bool]] = []


def case(name: str, auto_ack: bool = True):
    """Registers a case; it gets a fresh connection (closed afterwards) and fails by raising."""
    def register(fn: Callable[[Suite, Connection], None]):
        CASES.append((name, fn, auto_ack))
        return fn
    return register


def expect_status_ok(status: str, what: str) -> None:
    if status != "200":
        fail(f"{what} to answer :status 200", f":status {status}")


# -- basics and the connection preface (RFC 9113 section 3.4)

@case("get_ok")
def get_ok(suite: Suite, conn: Connection) -> None:
    status, _ = H2Session(conn).request("GET", suite.path)
    expect_status_ok(status, f"GET {suite.path}")


@case("server_preface_settings")
def server_preface_settings(suite: Suite, conn: Connection) -> None:
    conn.start()
    if conn.first_frame != "SETTINGS":
        fail("the server's first frame to be SETTINGS", conn.first_frame or "nothing")


@case("bad_preface", auto_ack=False)
def bad_preface(suite: Suite, conn: Connection) -> None:
    conn.send(b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n" + settings_frame())
    conn.expect_goaway(PROTOCOL_ERROR, allow_close=True)


@case("first_frame_not_settings", auto_ack=False)
def first_frame_not_settings(suite: Suite, conn: Connection) -> None:
    conn.send(PREFACE + ping_frame(b"notsetng"))
    conn.expect_goaway(PROTOCOL_ERROR, allow_close=True)


# -- SETTINGS (section 6.5)

@case("settings_ack_with_payload")
def settings_ack_with_payload(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(frame(SETTINGS, FLAG_ACK, 0, struct.pack(">HI", INITIAL_WINDOW_SIZE, 65535)))
    conn.expect_goaway(FRAME_SIZE_ERROR)


@case("settings_bad_length")
def settings_bad_length(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(frame(SETTINGS, 0, 0, b"\x00\x03\x00"))
    conn.expect_goaway(FRAME_SIZE_ERROR)


@case("settings_enable_push_invalid")
def settings_enable_push_invalid(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(settings_frame([(ENABLE_PUSH, 2)]))
    conn.expect_goaway(PROTOCOL_ERROR)


@case("settings_initial_window_too_large")
def settings_initial_window_too_large(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(settings_frame([(INITIAL_WINDOW_SIZE, 2**31)]))
    conn.expect_goaway(FLOW_CONTROL_ERROR)


@case("settings_max_frame_size_too_small")
def settings_max_frame_size_too_small(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(settings_frame([(MAX_FRAME_SIZE, 16383)]))
    conn.expect_goaway(PROTOCOL_ERROR)


@case("settings_max_frame_size_too_large")
def settings_max_frame_size_too_large(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(settings_frame([(MAX_FRAME_SIZE, 2**24)]))
    conn.expect_goaway(PROTOCOL_ERROR)


@case("settings_unknown_ignored")
def settings_unknown_ignored(suite: Suite, conn: Connection) -> None:
    conn.start([(0xF0F0, 1), (0x00FF, 0xFFFFFFFF)])
    conn.send(headers_frame(1, conn.encode(conn.request_headers())))
    status, _ = conn.expect_response(1)
    expect_status_ok(status, "a request after unknown settings")
    if conn.settings_acks < 1:
        fail("SETTINGS ACK for SETTINGS with unknown identifiers", "no ACK before the response")


@case("settings_acked")
def settings_acked(suite: Suite, conn: Connection) -> None:
    conn.start([(INITIAL_WINDOW_SIZE, 65535), (MAX_CONCURRENT_STREAMS, 100)])
    conn.send(settings_frame([(HEADER_TABLE_SIZE, 4096)]))
    dl = conn.deadline()
    while conn.settings_acks < 2:
        ev = conn.read(dl)
        if isinstance(ev, _Sentinel) or isinstance(ev, GoAwayFrame):
            fail("a SETTINGS ACK for each of our 2 SETTINGS frames",
                 f"{conn.settings_acks} ACK(s) then {describe(ev)}")


# -- PING (section 6.7)

@case("ping_ack")
def ping_ack(suite: Suite, conn: Connection) -> None:
    conn.start()
    payload = os.urandom(8)
    # A PING with ACK must not be answered; the first PING ACK must carry our real payload.
    conn.send(ping_frame(b"unsolict", ack=True), ping_frame(payload))
    dl = conn.deadline()
    while True:
        ev = conn.read(dl)
        if isinstance(ev, _Sentinel) or isinstance(ev, GoAwayFrame):
            fail("PING ACK with our payload", describe(ev))
        if isinstance(ev, PingFrame) and "ACK" in ev.flags:
            if ev.opaque_data != payload:
                fail(f"PING ACK with payload {payload.hex()}", f"PING ACK with payload {ev.opaque_data.hex()}")
            return


@case("ping_bad_length")
def ping_bad_length(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(ping_frame(b"\x00" * 6))
    conn.expect_goaway(FRAME_SIZE_ERROR)


@case("ping_nonzero_stream")
def ping_nonzero_stream(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(ping_frame(b"\x00" * 8, stream_id=1))
    conn.expect_goaway(PROTOCOL_ERROR)


# -- stream states and identifiers (section 5.1)

@case("data_idle_stream")
def data_idle_stream(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(data_frame(1, b"hello"))
    conn.expect_goaway(PROTOCOL_ERROR)


@case("headers_stream_zero")
def headers_stream_zero(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(headers_frame(0, raw_block(conn.request_headers())))
    conn.expect_goaway(PROTOCOL_ERROR)


@case("headers_even_stream")
def headers_even_stream(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(headers_frame(2, raw_block(conn.request_headers())))
    conn.expect_goaway(PROTOCOL_ERROR)


@case("headers_decreasing_stream")
def headers_decreasing_stream(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(headers_frame(5, raw_block(conn.request_headers())))
    status, _ = conn.expect_response(5)
    expect_status_ok(status, "the request on stream 5")
    conn.send(headers_frame(3, raw_block(conn.request_headers())))
    conn.expect_goaway(PROTOCOL_ERROR)


@case("rst_stream_idle")
def rst_stream_idle(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(rst_stream_frame(1, CANCEL))
    conn.expect_goaway(PROTOCOL_ERROR)


# -- WINDOW_UPDATE and flow control (sections 6.9, 6.9.1)

def open_post_stream(conn: Connection, stream_id: int, suite: Suite, extra: list[tuple[str, str]] = ()) -> bytes:
    """HEADERS for a POST without END_STREAM: the stream stays open while the body is pending."""
    return headers_frame(stream_id, raw_block(conn.request_headers("POST", suite.post_path, extra)), end_stream=False)


@case("window_update_zero_connection")
def window_update_zero_connection(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(window_update_frame(0, 0))
    conn.expect_goaway(PROTOCOL_ERROR)


@case("window_update_zero_stream")
def window_update_zero_stream(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(open_post_stream(conn, 1, suite), window_update_frame(1, 0))
    conn.expect_stream_error(1, (PROTOCOL_ERROR,))


@case("window_update_overflow_connection")
def window_update_overflow_connection(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(window_update_frame(0, MAX_WINDOW))  # 65535 + (2^31 - 1) > 2^31 - 1
    conn.expect_goaway(FLOW_CONTROL_ERROR)


@case("window_update_overflow_stream")
def window_update_overflow_stream(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(open_post_stream(conn, 1, suite), window_update_frame(1, MAX_WINDOW))
    conn.expect_stream_error(1, (FLOW_CONTROL_ERROR,))


def probe_body_length(suite: Suite) -> int:
    probe = suite.connect()
    try:
        status, body = H2Session(probe).request("GET", suite.path)
    finally:
        probe.close()
    expect_status_ok(status, f"GET {suite.path} (probe)")
    return len(body)


@case("window_exhaustion_recovery")
def window_exhaustion_recovery(suite: Suite, conn: Connection) -> None:
    length = probe_body_length(suite)
    if length < 2:
        fail(f"a body of at least 2 bytes from GET {suite.path} to exhaust a window with", f"{length} bytes")
    window = min(16, length // 2)
    conn.start([(INITIAL_WINDOW_SIZE, window)])
    conn.send(headers_frame(1, conn.encode(conn.request_headers())))
    status: str | None = None
    credited, body = 0, bytearray()
    dl = conn.deadline()
    stage = "before WINDOW_UPDATE"
    while True:
        ev = conn.read(dl if status is None or stage != "before WINDOW_UPDATE" else conn.deadline(QUIET_PERIOD))
        if ev is TIMEOUT and status is not None and stage == "before WINDOW_UPDATE":
            # The server went quiet with the window spent: give it the rest and expect the remainder.
            if credited > window:
                fail(f"at most {window} bytes of DATA before our WINDOW_UPDATE", f"{credited} bytes")
            stage = "after WINDOW_UPDATE"
            conn.send(window_update_frame(1, length), window_update_frame(0, length))
            dl = conn.deadline()
            continue
        if isinstance(ev, _Sentinel) or isinstance(ev, GoAwayFrame) or (
                isinstance(ev, RstStreamFrame) and ev.stream_id == 1):
            fail(f"the whole {length}-byte body {stage}", describe(ev) + f" after {len(body)} bytes")
        if ev.stream_id != 1:
            continue
        if isinstance(ev, HeadersFrame) and status is None:
            status = status_of(ev)
            expect_status_ok(status or "none", f"GET {suite.path}")
        elif isinstance(ev, DataFrame):
            credited += ev.flow_controlled_length
            body += ev.data
            if stage == "before WINDOW_UPDATE" and credited > window:
                fail(f"at most {window} bytes of DATA before our WINDOW_UPDATE", f"{credited} bytes")
            if "END_STREAM" in ev.flags:
                if stage == "before WINDOW_UPDATE":
                    fail(f"the server to stop at the {window}-byte window", f"the whole {len(body)}-byte body")
                if len(body) != length:
                    fail(f"a {length}-byte body", f"{len(body)} bytes")
                return


# -- CONTINUATION (section 6.10)

@case("continuation_ok")
def continuation_ok(suite: Suite, conn: Connection) -> None:
    conn.start()
    block = conn.encode(conn.request_headers())
    a, b = len(block) // 3, 2 * len(block) // 3
    conn.send(headers_frame(1, block[:a], end_headers=False),
              continuation_frame(1, block[a:b], end_headers=False),
              continuation_frame(1, block[b:]))
    status, _ = conn.expect_response(1)
    expect_status_ok(status, "HEADERS + 2 CONTINUATION")


@case("continuation_interleaved")
def continuation_interleaved(suite: Suite, conn: Connection) -> None:
    conn.start()
    block = raw_block(conn.request_headers())
    conn.send(headers_frame(1, block[:10], end_headers=False), ping_frame(b"interlvd"),
              continuation_frame(1, block[10:]))
    conn.expect_goaway(PROTOCOL_ERROR)


@case("continuation_without_headers")
def continuation_without_headers(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(continuation_frame(1, raw_block(conn.request_headers())))
    conn.expect_goaway(PROTOCOL_ERROR)


# -- frame size (section 4.2)

@case("frame_too_large_data")
def frame_too_large_data(suite: Suite, conn: Connection) -> None:
    conn.start()
    limit = conn.max_frame_size
    if limit >= LARGEST_FRAME_LENGTH:
        note("frame_too_large_data", f"server advertises SETTINGS_MAX_FRAME_SIZE {limit}: no frame can exceed it")
        return
    conn.send(open_post_stream(conn, 1, suite), data_frame(1, b"a" * (limit + 1)))
    conn.expect_stream_error(1, (FRAME_SIZE_ERROR,))


@case("frame_too_large_headers")
def frame_too_large_headers(suite: Suite, conn: Connection) -> None:
    conn.start()
    limit = conn.max_frame_size
    if limit >= LARGEST_FRAME_LENGTH:
        note("frame_too_large_headers", f"server advertises SETTINGS_MAX_FRAME_SIZE {limit}: no frame can exceed it")
        return
    base = raw_block(conn.request_headers())
    value_len = limit + 1 - len(base) - len(hpack_literal("x-filler", ""))
    while len(base) + len(hpack_literal("x-filler", "a" * value_len)) > limit + 1:
        value_len -= 1
    block = base + hpack_literal("x-filler", "a" * value_len)
    short = limit + 1 - len(block)  # 0..2 bytes lost to integer-length steps: make them up with padding
    conn.send(headers_frame(1, block) if short == 0 else headers_frame(1, block, pad=short - 1))
    conn.expect_goaway(FRAME_SIZE_ERROR)


# -- padding (sections 6.1, 6.2)

@case("padded_headers")
def padded_headers(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(headers_frame(1, conn.encode(conn.request_headers()), pad=20))
    status, _ = conn.expect_response(1)
    expect_status_ok(status, "a padded HEADERS request")


@case("padded_data")
def padded_data(suite: Suite, conn: Connection) -> None:
    conn.start()
    body = b"{}"
    extra = [("content-type", "application/json"), ("content-length", str(len(body)))]
    conn.send(open_post_stream(conn, 1, suite, extra), data_frame(1, body))
    plain, _ = conn.expect_response(1)
    conn.send(open_post_stream(conn, 3, suite, extra), data_frame(3, body, pad=30))
    padded, _ = conn.expect_response(3)
    if padded != plain:
        fail(f"the padded POST to answer like the unpadded one (:status {plain})", f":status {padded}")


@case("padding_too_long_headers")
def padding_too_long_headers(suite: Suite, conn: Connection) -> None:
    conn.start()
    block = raw_block(conn.request_headers())[:200]
    payload = bytes([len(block) + 1]) + block  # pad length >= payload length
    conn.send(frame(HEADERS, FLAG_END_STREAM | FLAG_END_HEADERS | FLAG_PADDED, 1, payload))
    conn.expect_goaway(PROTOCOL_ERROR)


@case("padding_too_long_data")
def padding_too_long_data(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(open_post_stream(conn, 1, suite), frame(DATA, FLAG_END_STREAM | FLAG_PADDED, 1, b"\x05ab"))
    conn.expect_goaway(PROTOCOL_ERROR)


# -- malformed requests (section 8.1.1, 8.2, 8.3)

@case("uppercase_header_name")
def uppercase_header_name(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(headers_frame(1, raw_block(conn.request_headers(extra=[("X-Upper", "1")]))))
    conn.expect_stream_error(1, (PROTOCOL_ERROR,))


@case("missing_method")
def missing_method(suite: Suite, conn: Connection) -> None:
    conn.start()
    headers = [h for h in conn.request_headers() if h[0] != ":method"]
    conn.send(headers_frame(1, raw_block(headers)))
    conn.expect_stream_error(1, (PROTOCOL_ERROR,))


@case("missing_path")
def missing_path(suite: Suite, conn: Connection) -> None:
    conn.start()
    headers = [h for h in conn.request_headers() if h[0] != ":path"]
    conn.send(headers_frame(1, raw_block(headers)))
    conn.expect_stream_error(1, (PROTOCOL_ERROR,))


@case("connection_specific_header")
def connection_specific_header(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(headers_frame(1, raw_block(conn.request_headers(extra=[("connection", "keep-alive")]))))
    conn.expect_stream_error(1, (PROTOCOL_ERROR,))


@case("content_length_short_body")
def content_length_short_body(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(open_post_stream(conn, 1, suite, [("content-length", "10")]), data_frame(1, b"{}"))
    conn.expect_stream_error(1, (PROTOCOL_ERROR,))


@case("content_length_long_body")
def content_length_long_body(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(open_post_stream(conn, 1, suite, [("content-length", "2")]), data_frame(1, b"{}    "))
    conn.expect_stream_error(1, (PROTOCOL_ERROR,))


# -- extensibility and priority (sections 4.1, 5.5, 5.3)

@case("unknown_frame_ignored")
def unknown_frame_ignored(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(frame(UNKNOWN_FRAME_TYPE, 0xFF, 0, b"extension"))
    conn.expect_alive()
    conn.send(headers_frame(1, conn.encode(conn.request_headers())))
    status, _ = conn.expect_response(1)
    expect_status_ok(status, "a request after an unknown frame type")


@case("priority_ignored")
def priority_ignored(suite: Suite, conn: Connection) -> None:
    conn.start()
    # PRIORITY on an idle stream, then that stream is opened; PRIORITY on a used and on a far idle stream.
    conn.send(priority_frame(1, 0, 200), headers_frame(1, conn.encode(conn.request_headers())))
    status, _ = conn.expect_response(1)
    expect_status_ok(status, "a request after PRIORITY on its idle stream")
    conn.send(priority_frame(1, 0, 1), priority_frame(11, 1, 32),
              headers_frame(13, conn.encode(conn.request_headers())))
    status, _ = conn.expect_response(13)
    expect_status_ok(status, "a request after PRIORITY on a closed and an idle stream")


# -- HPACK (RFC 7541 sections 2.3.3, 4.2, 6.3)

@case("hpack_invalid_index")
def hpack_invalid_index(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(headers_frame(1, hpack_int(70, 7, 0x80)))  # static 61 entries, dynamic table empty
    conn.expect_goaway(COMPRESSION_ERROR)


@case("hpack_table_size_update_too_large")
def hpack_table_size_update_too_large(suite: Suite, conn: Connection) -> None:
    conn.start()
    limit = conn.server_settings.get(HEADER_TABLE_SIZE, 4096)
    block = hpack_int(limit + 1, 5, 0x20) + raw_block(conn.request_headers())
    conn.send(headers_frame(1, block))
    conn.expect_goaway(COMPRESSION_ERROR)


# -- GOAWAY from the client (section 6.8)

@case("request_after_client_goaway")
def request_after_client_goaway(suite: Suite, conn: Connection) -> None:
    conn.start()
    conn.send(headers_frame(1, conn.encode(conn.request_headers())), goaway_frame(0, NO_ERROR))
    status, _ = conn.expect_response(1)
    expect_status_ok(status, "the request in flight when we sent GOAWAY")
    # Our GOAWAY only limits streams the server would open; a new request must be answered or
    # refused cleanly (REFUSED_STREAM, GOAWAY NO_ERROR, or an orderly close), never errored.
    conn.send(headers_frame(3, conn.encode(conn.request_headers())))
    want = "a response, RST_STREAM REFUSED_STREAM, GOAWAY NO_ERROR or close for a request after our GOAWAY"
    dl = conn.deadline()
    while True:
        ev = conn.read(dl)
        if ev is CLOSED:
            return
        if ev is TIMEOUT:
            fail(want, f"nothing within {READ_TIMEOUT:g}s" + conn.saw())
        if isinstance(ev, GoAwayFrame):
            if ev.error_code == NO_ERROR:
                return
            fail(want, describe(ev))
        if isinstance(ev, RstStreamFrame) and ev.stream_id == 3:
            if ev.error_code == REFUSED_STREAM:
                return
            fail(want, describe(ev))
        if isinstance(ev, HeadersFrame) and ev.stream_id == 3:
            expect_status_ok(status_of(ev) or "none", "the request after our GOAWAY")
            return


# -- limits (sections 5.1.2, 6.5.2, 10.5.1)

@case("header_list_too_large")
def header_list_too_large(suite: Suite, conn: Connection) -> None:
    conn.start()
    limit = conn.server_settings.get(MAX_HEADER_LIST_SIZE)
    if limit is None:
        target = 64 * 1024  # over common defaults, and few enough CONTINUATIONs to stay clear of flood caps
        note("header_list_too_large", f"server advertises no SETTINGS_MAX_HEADER_LIST_SIZE; sending a header list over {target} bytes")
    else:
        target = limit + 1024
    headers = conn.request_headers()
    i = 0
    while header_list_size(headers) <= target:
        headers.append((f"x-filler-{i}", "a" * 4000))
        i += 1
    block = raw_block(headers)
    chunk = min(conn.max_frame_size, 1 << 20)
    pieces = [block[o:o + chunk] for o in range(0, len(block), chunk)]
    frames = [headers_frame(1, pieces[0], end_headers=len(pieces) == 1)]
    frames += [continuation_frame(1, p, end_headers=k == len(pieces) - 1) for k, p in enumerate(pieces[1:], 1)]
    conn.send(*frames)
    want = f"431, RST_STREAM or GOAWAY for a {header_list_size(headers)}-byte header list (limit {limit})"
    dl = conn.deadline()
    while True:
        ev = conn.read(dl)
        if isinstance(ev, _Sentinel):
            fail(want, describe(ev) + conn.saw())
        if isinstance(ev, GoAwayFrame) or (isinstance(ev, RstStreamFrame) and ev.stream_id == 1):
            return
        if isinstance(ev, HeadersFrame) and ev.stream_id == 1:
            if status_of(ev) == "431":
                return
            fail(want, f":status {status_of(ev)}")


@case("concurrent_streams_limit")
def concurrent_streams_limit(suite: Suite, conn: Connection) -> None:
    # A zero initial window keeps every answered stream open (its DATA cannot be sent), so the
    # streams really are concurrent; this needs a non-empty body on --path.
    conn.start([(INITIAL_WINDOW_SIZE, 0)])
    limit = conn.server_settings.get(MAX_CONCURRENT_STREAMS)
    if limit is None:
        fail("an advertised SETTINGS_MAX_CONCURRENT_STREAMS", "none")
    if limit > 10000:
        fail("a SETTINGS_MAX_CONCURRENT_STREAMS small enough to exceed (<= 10000)", str(limit))
    excess = 2 * limit + 1
    conn.send(*[headers_frame(sid, conn.encode(conn.request_headers())) for sid in range(1, excess + 1, 2)])
    want = f"RST_STREAM(stream {excess}, REFUSED_STREAM or PROTOCOL_ERROR) beyond the limit of {limit}"
    dl = conn.deadline()
    while True:
        ev = conn.read(dl)
        if isinstance(ev, _Sentinel):
            fail(want, describe(ev) + conn.saw())
        if isinstance(ev, GoAwayFrame):
            if ev.error_code == PROTOCOL_ERROR:
                return
            fail(want, describe(ev))
        if isinstance(ev, RstStreamFrame):
            if ev.stream_id == excess and ev.error_code in (REFUSED_STREAM, PROTOCOL_ERROR):
                return
            fail(want, describe(ev))
        if isinstance(ev, HeadersFrame) and ev.stream_id == excess:
            fail(want, f"a response with :status {status_of(ev)} (does GET {suite.path} have a body?)")


@case("many_streams")
def many_streams(suite: Suite, conn: Connection) -> None:
    session = H2Session(conn)
    for n in range(100):
        status, _ = session.request("GET", suite.path)
        if status != "200":
            fail(f"100 sequential requests on one connection to answer :status 200", f":status {status} on request {n + 1}")


# --------------------------------------------------------------------------------------------


def run(suite: Suite, only: set[str]) -> int:
    passed = failed = 0
    for name, fn, auto_ack in CASES:
        if only and name not in only:
            continue
        if time.monotonic() >= suite.deadline:
            print(f"FAIL {name}: expected the suite to finish within {SUITE_BUDGET:g}s, got the budget spent", flush=True)
            failed += 1
            continue
        conn = None
        try:
            conn = suite.connect(auto_ack=auto_ack)
            fn(suite, conn)
            print(f"PASS {name}", flush=True)
            passed += 1
        except CaseFailure as failure:
            print(f"FAIL {name}: {failure}", flush=True)
            failed += 1
        except (OSError, ssl.SSLError) as err:
            print(f"FAIL {name}: expected a working TLS connection, got {type(err).__name__}: {err}", flush=True)
            failed += 1
        except Exception as err:  # a bug in the case itself still reports one line
            print(f"FAIL {name}: expected the case to run, got {type(err).__name__}: {err}", flush=True)
            failed += 1
        finally:
            if conn is not None:
                conn.close()
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="HTTP/2 conformance checks against a live TLS server.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cafile", required=True, help="PEM file the server certificate must chain to")
    parser.add_argument("--path", default="/healthz", help="GET route answering 200 with a body of at least 2 bytes")
    parser.add_argument("--post-path", default=None, help="route that reads a POST body (default: --path)")
    parser.add_argument("--server-name", default="localhost", help="TLS server name to verify (default localhost)")
    parser.add_argument("--only", action="append", default=[], help="run only this case (repeatable, or comma list)")
    parser.add_argument("--list", action="store_true", help="print the case names and exit")
    parser.add_argument("--verbose", action="store_true", help="log every frame received to stderr")
    args = parser.parse_args(argv)
    names = [name for name, _, _ in CASES]
    if args.list:
        print("\n".join(names))
        return 0
    only = {n for item in args.only for n in item.split(",") if n}
    unknown = sorted(only - set(names))
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(names)}")
    try:
        suite = Suite(args)
    except (OSError, ssl.SSLError) as err:
        parser.error(f"cannot load --cafile {args.cafile}: {err}")
    return run(suite, only)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
