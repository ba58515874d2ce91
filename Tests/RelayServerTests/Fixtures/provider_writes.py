#!/usr/bin/env python3
"""Sends live-activity device pushes to a relay over HTTP/2 as fast as it answers, from several
connections at once, until the relay goes away (the crash test kills it with SIGKILL).

Each thread owns a share of the tokens and sends them update pushes in turn, one stream at a time,
with a content state {"n": N} and an `aps.timestamp` that grow with N. Every push answered `200`
is printed at once as one line of JSON, so the test knows exactly what the relay promised:
  {"apnsId": ..., "token": ..., "n": N, "timestamp": T}
`429 TooManyRequests` (a token's burst spent) is expected and not printed; any other answer is
written to stderr, which the test requires to stay empty.

usage: provider_writes.py PORT CAFILE PROVIDER_JWT TOPIC FIRST_N TOKEN [TOKEN ...]
  FIRST_N: where this run's counters start, above every earlier run's, so that each push's
  timestamp is newer than any the relay has applied.

Requires: Python 3.9+ and h2 (`pip install h2`).
"""

import json
import socket
import ssl
import sys
import threading
import time
import uuid

import h2.config
import h2.connection
import h2.events
import h2.exceptions

THREADS = 4
port, cafile, jwt, topic = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
first_n = int(sys.argv[5])
tokens = sys.argv[6:]
# Timestamps are this run's start plus N, so each push is newer than the ones before it.
base_timestamp = int(time.time())
print_lock = threading.Lock()


def emit(stream, line):
    with print_lock:
        stream.write(line + "\n")
        stream.flush()


class Connection:
    def __init__(self):
        context = ssl.create_default_context(cafile=cafile)
        context.set_alpn_protocols(["h2"])
        raw = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock = context.wrap_socket(raw, server_hostname="localhost")
        self.conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
        self.conn.initiate_connection()
        self.flush()

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def push(self, token, body, apns_id):
        """Sends one push and returns its status, or None when the connection ended first."""
        stream_id = self.conn.get_next_available_stream_id()
        headers = [
            (":method", "POST"), (":scheme", "https"), (":authority", "localhost:%d" % port),
            (":path", "/3/device/" + token), ("authorization", "bearer " + jwt),
            ("apns-push-type", "liveactivity"), ("apns-topic", topic), ("apns-priority", "10"),
            ("apns-id", apns_id), ("content-type", "application/json"),
        ]
        self.conn.send_headers(stream_id, headers)
        self.conn.send_data(stream_id, body, end_stream=True)
        self.flush()
        status = None
        while True:
            data = self.sock.recv(65536)
            if not data:
                return None
            for event in self.conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream_id:
                    status = int(dict(event.headers)[b":status"])
                elif isinstance(event, h2.events.DataReceived):
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded) and event.stream_id == stream_id:
                    self.flush()
                    return status
                elif isinstance(event, (h2.events.StreamReset, h2.events.ConnectionTerminated)):
                    return None
            self.flush()


def writer(index):
    mine = tokens[index::THREADS]
    n = first_n + index
    try:
        connection = Connection()
        while True:
            for token in mine:
                apns_id = str(uuid.uuid4())
                timestamp = base_timestamp + n
                body = json.dumps({"aps": {"event": "update", "timestamp": timestamp, "content-state": {"n": n}}})
                status = connection.push(token, body.encode(), apns_id)
                if status is None:
                    return  # the relay went away mid-answer
                if status == 200:
                    emit(sys.stdout, json.dumps({"apnsId": apns_id, "token": token, "n": n, "timestamp": timestamp}))
                elif status != 429:
                    emit(sys.stderr, "push %s to %s answered %d" % (apns_id, token, status))
                n += THREADS
    except (OSError, ssl.SSLError, h2.exceptions.ProtocolError):
        return  # the relay was killed


threads = [threading.Thread(target=writer, args=(index,)) for index in range(THREADS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
