#!/usr/bin/env python3
"""Sends provider API requests over HTTP/2 exactly as written, and reports the answers as JSON.

The XCTest suites describe the requests (any method, path and headers, duplicates included, any
body) and check the answers; this script only moves bytes, through the `h2` package's client state
machine over TLS (ALPN h2, certificate checked against --cafile for the name "localhost").

Input (stdin, or the file named by --input), JSON:
  {"connections": [
     {"requests": [{"method": "POST", "path": "/3/device/..", "headers": [["name", "value"], ...],
                    "body": "text" | null, "bodyBytes": 4097 (a body of that many "x" instead),
                    "repeat": 1 (copies sent at once, on separate streams, before reading)}, ...],
      "waitGoaway": 0 (seconds to wait for GOAWAY after the last answer)}, ...]}
Output (stdout), JSON: one object per connection,
  {"responses": [{"status": 200, "headers": {"name": "value"}, "body": "..."} | {"reset": code}, ...],
   "goaway": {"code": 0, "data": "..."} | null, "closed": bool}
With "repeat" every copy's answer is listed, in stream order. Exit status 0 unless the connection
could not be made (then 1, with the reason on stderr). Every read waits at most 10 s.

Requires: Python 3.9+ and h2 (`pip install h2`).
"""

import argparse
import json
import socket
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.events

READ_TIMEOUT = 10.0


class Connection:
    def __init__(self, host, port, cafile):
        context = ssl.create_default_context(cafile=cafile)
        context.set_alpn_protocols(["h2"])
        raw = socket.create_connection((host, port), timeout=READ_TIMEOUT)
        self.sock = context.wrap_socket(raw, server_hostname="localhost")
        config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8", validate_outbound_headers=False,
                                           normalize_outbound_headers=False)
        self.conn = h2.connection.H2Connection(config=config)
        self.conn.initiate_connection()
        self.flush()
        self.streams = {}
        self.goaway = None
        self.closed = False
        self.authority = f"localhost:{port}"

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def send(self, request):
        stream_id = self.conn.get_next_available_stream_id()
        body = request.get("body")
        if request.get("bodyBytes") is not None:
            body = "x" * request["bodyBytes"]
        data = body.encode() if body is not None else b""
        headers = [(":method", request.get("method", "POST")), (":scheme", "https"),
                   (":authority", self.authority), (":path", request["path"])]
        headers += [(name, value) for name, value in request.get("headers", [])]
        self.conn.send_headers(stream_id, headers, end_stream=not data)
        offset = 0
        while offset < len(data):
            window = min(self.conn.local_flow_control_window(stream_id), self.conn.max_outbound_frame_size)
            if window <= 0:
                self.flush()
                self.pump(time.time() + READ_TIMEOUT, lambda: self.conn.local_flow_control_window(stream_id) > 0
                          or stream_id in self.streams and self.streams[stream_id].get("done"))
                if self.streams.get(stream_id, {}).get("done"):
                    break
                continue
            chunk = data[offset:offset + window]
            offset += len(chunk)
            self.conn.send_data(stream_id, chunk, end_stream=offset >= len(data))
        self.flush()
        self.streams.setdefault(stream_id, {"headers": {}, "body": b""})
        return stream_id

    def pump(self, deadline, done):
        while not done() and not self.closed:
            remaining = deadline - time.time()
            if remaining <= 0:
                return
            self.sock.settimeout(remaining)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                return
            except (ConnectionError, ssl.SSLError):
                self.closed = True
                return
            if not data:
                self.closed = True
                return
            for event in self.conn.receive_data(data):
                self.handle(event)
            self.flush()

    def handle(self, event):
        if isinstance(event, h2.events.ResponseReceived):
            stream = self.streams.setdefault(event.stream_id, {"headers": {}, "body": b""})
            for name, value in event.headers:
                if name == ":status":
                    stream["status"] = int(value)
                elif name in stream["headers"]:
                    stream["headers"][name] += ", " + value
                else:
                    stream["headers"][name] = value
            if event.stream_ended:
                stream["done"] = True
        elif isinstance(event, h2.events.DataReceived):
            stream = self.streams.setdefault(event.stream_id, {"headers": {}, "body": b""})
            stream["body"] += event.data
            self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded):
            self.streams.setdefault(event.stream_id, {"headers": {}, "body": b""})["done"] = True
        elif isinstance(event, h2.events.StreamReset):
            stream = self.streams.setdefault(event.stream_id, {"headers": {}, "body": b""})
            stream["reset"] = int(event.error_code)
            stream["done"] = True
        elif isinstance(event, h2.events.ConnectionTerminated):
            data = event.additional_data.decode("utf-8", "replace") if event.additional_data else ""
            self.goaway = {"code": int(event.error_code), "data": data}

    def answer(self, stream_id):
        stream = self.streams.get(stream_id, {})
        if not stream.get("done"):
            return {"missing": True}
        if "reset" in stream and "status" not in stream:
            return {"reset": stream["reset"]}
        return {"status": stream.get("status"), "headers": stream["headers"],
                "body": stream["body"].decode("utf-8", "replace")}


def run(spec, host, port, cafile):
    connection = Connection(host, port, cafile)
    responses = []
    for request in spec.get("requests", []):
        ids = [connection.send(request) for _ in range(request.get("repeat", 1))]
        deadline = time.time() + READ_TIMEOUT
        connection.pump(deadline, lambda: all(connection.streams[i].get("done") for i in ids))
        responses += [connection.answer(i) for i in ids]
    wait = spec.get("waitGoaway", 0)
    if wait:
        connection.pump(time.time() + wait, lambda: connection.goaway is not None)
        if connection.goaway is not None:
            connection.pump(time.time() + 2, lambda: False)  # then the server should close
    result = {"responses": responses, "goaway": connection.goaway, "closed": connection.closed}
    connection.sock.close()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cafile", required=True)
    parser.add_argument("--input", help="read the JSON input from this file instead of stdin")
    args = parser.parse_args()
    if args.input:
        with open(args.input) as handle:
            spec = json.load(handle)
    else:
        spec = json.load(sys.stdin)
    results = []
    for connection in spec["connections"]:
        try:
            results.append(run(connection, args.host, args.port, args.cafile))
        except (OSError, ssl.SSLError) as error:
            print(f"provider_h2.py: cannot reach {args.host}:{args.port}: {error}", file=sys.stderr)
            return 1
    json.dump(results, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
