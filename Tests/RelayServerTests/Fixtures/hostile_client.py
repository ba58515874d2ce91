#!/usr/bin/env python3
"""Hostile clients against a live relay, one attack per mode; prints one JSON line of findings.

Modes (the relay is expected to run with short deadlines, see HostileClientLiveTests):
- h2-bodies: 128 POST streams, each sends DATA and never END_STREAM; reports how many body bytes
  the relay let in (its flow-control windows) and the statuses it answered once the body deadline
  passed.
- h2-zero-window: SETTINGS_INITIAL_WINDOW_SIZE=0, GET --path on 4 streams, then 28 more, never a
  WINDOW_UPDATE; reports how many streams were refused, the GOAWAY error code and whether the
  connection closed.
- h2-continuation: a HEADERS frame followed by 5-byte CONTINUATION frames every 0.3 s; reports the
  GOAWAY and the seconds until the connection closed.
- h2-pings: no stream, a PING every 0.3 s; reports the GOAWAY and the seconds until close.
- h2-bad-path: GET with a :path holding a space; reports the RST_STREAM error code.
- http1-trickle: HTTP/1.1 headers one byte every 0.3 s; reports the status line and seconds.
- http1-bodies: 24 HTTP/1.1 connections each send most of a 60,000-byte body and stop; reports the
  status lines and `retry-after` values they were answered.
- seed-pushes: --count pushes of about 4 KB each (to a made-up token, so each is refused and
  logged with its payload) with --jwt; reports how many were answered.
- h2-zero-window-lists: --connections connections, each SETTINGS_INITIAL_WINDOW_SIZE=0 and 128
  GET --path streams with --bearer, never a WINDOW_UPDATE; reports the statuses answered, the
  streams refused, and /healthz; holds the connections --hold seconds more.
- http1-unread-lists: --connections HTTP/1.1 connections with a 4 KiB receive buffer each send
  GET --path with --bearer and read nothing for --hold seconds; reports /healthz, then each
  answer's status line and framing.
- connection-slots: opens --connections TLS connections and holds them --hold seconds; reports
  how many were admitted and how many closed at once, and /healthz asked from --source.
(h2-bodies also reports how many of its streams were refused with REFUSED_STREAM.)
Every read has a deadline; the whole run stops at --budget seconds.
"""

import argparse
import json
import socket
import ssl
import time

import h2.config
import h2.connection
import h2.events
import h2.settings
from hpack import Encoder
from hyperframe.frame import ContinuationFrame, HeadersFrame, PingFrame

args = None


def connect(alpn):
    context = ssl.create_default_context(cafile=args.cafile)
    context.set_alpn_protocols([alpn])
    raw = socket.create_connection((args.host, args.port), timeout=5)
    return context.wrap_socket(raw, server_hostname="localhost")


def h2_connection(settings=None):
    sock = connect("h2")
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    if settings:
        conn.update_settings(settings)
    sock.sendall(conn.data_to_send())
    return sock, conn


def pump(sock, conn, seconds, until=None, respond=True):
    """Reads events for up to `seconds`; returns (events, closed). Without `respond` nothing is
    sent back (an answer would interrupt a header block the caller is sending)."""
    found = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, min(0.5, deadline - time.monotonic())))
        try:
            data = sock.recv(65536)
        except (socket.timeout, ssl.SSLWantReadError):
            continue
        except (ConnectionError, ssl.SSLError, OSError):
            return found, True
        if not data:
            return found, True
        try:
            events = conn.receive_data(data)
        except Exception:  # a protocol violation after GOAWAY still counts as an answer
            return found, True
        found.extend(events)
        out = conn.data_to_send() if respond else b""
        if out:
            try:
                sock.sendall(out)
            except OSError:
                return found, True
        if until and until(found):
            return found, False
    return found, False


def goaway_code(events):
    for event in events:
        if isinstance(event, h2.events.ConnectionTerminated):
            return int(event.error_code)
    return None


def h2_bodies():
    sock, conn = h2_connection()
    pump(sock, conn, 1, until=lambda e: any(isinstance(x, h2.events.RemoteSettingsChanged) for x in e))
    streams = []
    for _ in range(128):
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, [(":method", "POST"), (":scheme", "https"), (":authority", "localhost"),
                                (":path", args.post_path), ("content-length", "65000")])
        streams.append(sid)
    sock.sendall(conn.data_to_send())
    sent = 0
    per_stream = {}
    chunk = b"x" * 16000
    stalled_since = None
    start = time.monotonic()
    statuses = []
    refused = 0
    # Fill every window the relay grants until nothing more can go for two seconds.
    while time.monotonic() - start < args.budget:
        progressed = False
        for sid in streams:
            try:
                room = min(conn.local_flow_control_window(sid), conn.max_outbound_frame_size, len(chunk))
            except Exception:
                continue
            room = min(room, 64000 - per_stream.get(sid, 0))
            if room > 0:
                conn.send_data(sid, chunk[:room])
                sent += room
                per_stream[sid] = per_stream.get(sid, 0) + room
                progressed = True
        out = conn.data_to_send()
        if out:
            sock.sendall(out)
        events, closed = pump(sock, conn, 0.2)
        statuses += [dict(e.headers).get(b":status", b"").decode() for e in events
                     if isinstance(e, h2.events.ResponseReceived)]
        refused += sum(1 for e in events if isinstance(e, h2.events.StreamReset) and int(e.error_code) == 7)
        if closed or statuses or refused:
            break
        if progressed:
            stalled_since = None
        elif stalled_since is None:
            stalled_since = time.monotonic()
    # Then wait for the body deadline's answers.
    events, _ = pump(sock, conn, args.budget - (time.monotonic() - start),
                     until=lambda e: sum(isinstance(x, h2.events.ResponseReceived) for x in e) + len(statuses) >= 128)
    statuses += [dict(e.headers).get(b":status", b"").decode() for e in events
                 if isinstance(e, h2.events.ResponseReceived)]
    return {"sent": sent, "statuses": sorted(set(statuses)), "answered": len(statuses), "refused": refused}


def h2_zero_window():
    sock, conn = h2_connection({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
    start = time.monotonic()
    events = []
    # Four requests first; once their answers are queued, 28 more.
    for batch in (4, 28):
        for _ in range(batch):
            sid = conn.get_next_available_stream_id()
            conn.send_headers(sid, [(":method", "GET"), (":scheme", "https"), (":authority", "localhost"),
                                    (":path", args.path)], end_stream=True)
        sock.sendall(conn.data_to_send())
        found, closed = pump(sock, conn, 0.5)
        events += found
    found, closed = pump(sock, conn, args.budget, until=lambda e: goaway_code(e) is not None)
    events += found
    if not closed:
        _, closed = pump(sock, conn, 5)
    refused = sum(1 for e in events if isinstance(e, h2.events.StreamReset) and int(e.error_code) == 7)
    return {"goaway": goaway_code(events), "closed": closed, "refused": refused,
            "seconds": round(time.monotonic() - start, 1)}


def h2_continuation():
    sock, conn = h2_connection()
    pump(sock, conn, 2, until=lambda e: any(isinstance(x, h2.events.SettingsAcknowledged) for x in e))
    block = Encoder().encode([(":method", "GET"), (":scheme", "https"), (":authority", "localhost"),
                              (":path", "/healthz")] + [("x-pad-%d" % i, "y" * 40) for i in range(100)])
    headers = HeadersFrame(1)
    headers.data = block[:5]
    sock.sendall(headers.serialize())
    start = time.monotonic()
    offset = 5
    events, closed = [], False
    while time.monotonic() - start < args.budget and offset < len(block) - 5:
        frame = ContinuationFrame(1)
        frame.data = block[offset:offset + 5]
        offset += 5
        try:
            sock.sendall(frame.serialize())
        except OSError:
            closed = True
            break
        found, closed = pump(sock, conn, 0.3, until=lambda e: goaway_code(e) is not None, respond=False)
        events += found
        if closed or goaway_code(events) is not None:
            break
    return {"goaway": goaway_code(events), "closed": closed or goaway_code(events) is not None,
            "seconds": round(time.monotonic() - start, 1)}


def h2_bad_path():
    sock = connect("h2")
    conn = h2.connection.H2Connection(
        h2.config.H2Configuration(client_side=True, validate_outbound_headers=False, normalize_outbound_headers=False))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    conn.send_headers(1, [(":method", "GET"), (":scheme", "https"), (":authority", "localhost"),
                          (":path", "/healthz x")], end_stream=True)
    sock.sendall(conn.data_to_send())
    events, _ = pump(sock, conn, args.budget, until=lambda e: any(
        isinstance(x, (h2.events.StreamReset, h2.events.ResponseReceived)) for x in e))
    resets = [int(e.error_code) for e in events if isinstance(e, h2.events.StreamReset)]
    statuses = [dict(e.headers).get(b":status", b"").decode() for e in events
                if isinstance(e, h2.events.ResponseReceived)]
    return {"reset": resets[0] if resets else None, "statuses": statuses}


def h2_pings():
    sock, conn = h2_connection()
    start = time.monotonic()
    events, closed = [], False
    while time.monotonic() - start < args.budget:
        try:
            conn.ping(b"12345678")
            sock.sendall(conn.data_to_send())
        except Exception:
            closed = True
            break
        found, closed = pump(sock, conn, 0.3, until=lambda e: goaway_code(e) is not None)
        events += found
        if closed or goaway_code(events) is not None:
            break
    return {"goaway": goaway_code(events), "closed": closed or goaway_code(events) is not None,
            "seconds": round(time.monotonic() - start, 1)}


def http1_trickle():
    sock = connect("http/1.1")
    request = b"GET /healthz HTTP/1.1\r\nhost: localhost\r\n" + b"x-pad: " + b"y" * 400 + b"\r\n\r\n"
    start = time.monotonic()
    answer = b""
    for byte in request:
        if time.monotonic() - start > args.budget:
            break
        try:
            sock.sendall(bytes([byte]))
        except OSError:
            break
        sock.settimeout(0.3)
        try:
            data = sock.recv(4096)
        except (socket.timeout, ssl.SSLWantReadError):
            continue
        except OSError:
            break
        if not data:
            break
        answer += data
        if b"\r\n" in answer:
            break
    status = answer.split(b"\r\n", 1)[0].decode(errors="replace")
    return {"status": status, "seconds": round(time.monotonic() - start, 1)}


def http1_bodies():
    socks = []
    head = (b"POST " + args.post_path.encode() + b" HTTP/1.1\r\nhost: localhost\r\n"
            b"content-length: 60000\r\n\r\n")
    for _ in range(24):
        try:
            sock = connect("http/1.1")
            sock.sendall(head + b"x" * 50000)
            socks.append(sock)
        except OSError:
            break
        time.sleep(0.05)
    answers = []
    for sock in socks:
        sock.settimeout(2)
        try:
            data = sock.recv(4096)
        except (socket.timeout, ssl.SSLWantReadError, OSError):
            continue
        if data:
            lines = data.split(b"\r\n")
            retry = [line.split(b":", 1)[1].strip().decode() for line in lines if line.lower().startswith(b"retry-after:")]
            answers.append({"status": lines[0].decode(errors="replace"), "retryAfter": retry[0] if retry else None})
    return {"connections": len(socks), "answers": answers}


def healthz(source=None):
    """GET /healthz on a new HTTP/2 connection (from `source`, an address to bind); reports the
    status and the seconds it took, giving up after 5 s."""
    start = time.monotonic()
    try:
        context = ssl.create_default_context(cafile=args.cafile)
        context.set_alpn_protocols(["h2"])
        raw = socket.create_connection((args.host, args.port), timeout=5,
                                       source_address=(source, 0) if source else None)
        sock = context.wrap_socket(raw, server_hostname="localhost")
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        conn.initiate_connection()
        conn.send_headers(1, [(":method", "GET"), (":scheme", "https"), (":authority", "localhost"),
                              (":path", "/healthz")], end_stream=True)
        sock.sendall(conn.data_to_send())
        events, _ = pump(sock, conn, 5, until=lambda e: any(isinstance(x, h2.events.ResponseReceived) for x in e))
        sock.close()
    except OSError as error:
        return {"status": None, "error": str(error), "seconds": round(time.monotonic() - start, 1)}
    statuses = [dict(e.headers).get(b":status", b"").decode() for e in events
                if isinstance(e, h2.events.ResponseReceived)]
    return {"status": statuses[0] if statuses else None, "seconds": round(time.monotonic() - start, 1)}


def seed_pushes():
    payload = json.dumps({"aps": {"alert": "seed"}, "pad": "x" * 3900}).encode()
    token = "ab" * 32
    answered, start = 0, time.monotonic()
    # The relay closes a connection after 100 refusals in a row: 90 pushes per connection.
    while answered < args.count and time.monotonic() - start < args.budget:
        sock, conn = h2_connection()
        sent, done = 0, 0
        while done < min(90, args.count - answered) and time.monotonic() - start < args.budget:
            while (sent < min(90, args.count - answered) and sent - done < 8
                   and conn.outbound_flow_control_window >= len(payload)):
                sid = conn.get_next_available_stream_id()
                conn.send_headers(sid, [(":method", "POST"), (":scheme", "https"), (":authority", "localhost"),
                                        (":path", "/3/device/" + token), ("authorization", "bearer " + args.jwt),
                                        ("apns-topic", "com.example.seed"), ("apns-push-type", "alert")])
                conn.send_data(sid, payload, end_stream=True)
                sent += 1
            sock.sendall(conn.data_to_send())
            events, closed = pump(sock, conn, 2, until=lambda e: any(isinstance(x, h2.events.StreamEnded) for x in e))
            done += sum(1 for e in events if isinstance(e, h2.events.StreamEnded))
            if closed:
                break
        answered += done
        sock.close()
    return {"answered": answered}


def h2_zero_window_lists():
    start = time.monotonic()
    opened = []
    for _ in range(args.connections):
        sock, conn = h2_connection({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
        for _ in range(128):
            sid = conn.get_next_available_stream_id()
            conn.send_headers(sid, [(":method", "GET"), (":scheme", "https"), (":authority", "localhost"),
                                    (":path", args.path), ("authorization", "Bearer " + args.bearer)],
                              end_stream=True)
        sock.sendall(conn.data_to_send())
        opened.append((sock, conn))
    statuses, refused = [], 0
    for sock, conn in opened:
        def settled(events):
            return sum(isinstance(x, (h2.events.ResponseReceived, h2.events.StreamReset)) for x in events) >= 128
        events, _ = pump(sock, conn, max(1, args.budget - (time.monotonic() - start)), until=settled)
        statuses += [dict(e.headers).get(b":status", b"").decode() for e in events
                     if isinstance(e, h2.events.ResponseReceived)]
        refused += sum(1 for e in events if isinstance(e, h2.events.StreamReset) and int(e.error_code) == 7)
    health = healthz()
    time.sleep(args.hold)
    return {"answered": len(statuses), "statuses": sorted(set(statuses)), "refused": refused, "healthz": health}


def http1_unread_lists():
    context = ssl.create_default_context(cafile=args.cafile)
    context.set_alpn_protocols(["http/1.1"])
    request = ("GET " + args.path + " HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer " + args.bearer
               + "\r\n\r\n").encode()
    socks = []
    for _ in range(args.connections):
        raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        raw.settimeout(5)
        raw.connect((args.host, args.port))
        sock = context.wrap_socket(raw, server_hostname="localhost")
        sock.sendall(request)
        socks.append(sock)
    time.sleep(args.hold)
    health = healthz()
    answers = []
    for sock in socks:
        try:
            head = sock.recv(4096).split(b"\r\n\r\n", 1)[0].decode(errors="replace").lower()
        except OSError:
            continue
        lines = head.split("\r\n")
        answers.append({"status": lines[0], "chunked": "transfer-encoding: chunked" in lines})
    return {"healthz": health, "answers": answers}


def connection_slots():
    context = ssl.create_default_context(cafile=args.cafile)
    held, refused = [], 0
    for _ in range(args.connections):
        try:
            raw = socket.create_connection((args.host, args.port), timeout=5)
            sock = context.wrap_socket(raw, server_hostname="localhost")
            held.append(sock)
        except (OSError, ssl.SSLError):
            refused += 1
    health = healthz(args.source)
    time.sleep(args.hold)
    return {"admitted": len(held), "refused": refused, "healthz": health}


def main():
    global args
    parser = argparse.ArgumentParser()
    parser.add_argument("mode")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cafile", required=True)
    parser.add_argument("--path", default="/bytes?n=500000")
    parser.add_argument("--post-path", default="/echo")
    parser.add_argument("--budget", type=float, default=40)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--jwt", default="")
    parser.add_argument("--bearer", default="")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--hold", type=float, default=2)
    parser.add_argument("--source", default=None)
    args = parser.parse_args()
    modes = {"h2-bodies": h2_bodies, "h2-zero-window": h2_zero_window, "h2-continuation": h2_continuation,
             "h2-pings": h2_pings, "h2-bad-path": h2_bad_path, "http1-trickle": http1_trickle,
             "http1-bodies": http1_bodies, "seed-pushes": seed_pushes, "h2-zero-window-lists": h2_zero_window_lists,
             "http1-unread-lists": http1_unread_lists, "connection-slots": connection_slots}
    print(json.dumps(modes[args.mode]()))


if __name__ == "__main__":
    main()
