#!/usr/bin/env python3
"""Sends live-activity device pushes to a relay over HTTP/2 as fast as it answers, from several
connections at once, until the relay goes away (the crash test kills it with SIGKILL).

Each thread owns a share of the tokens and sends them update pushes in turn, eight streams open
at a time on its connection, with a content state {"n": N} and an `aps.timestamp` that grow with
N. Every push answered `200` is printed at once as one line of JSON, so the test knows exactly
what the relay promised:
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
IN_FLIGHT = 8
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
        self.statuses = {}  # stream id -> the status of an answer whose stream has not ended yet

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def send(self, token, body, apns_id):
        """Opens a stream with one push and returns its id."""
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
        return stream_id

    def answers(self):
        """Reads once and returns [(stream id, status)] for the streams that ended; None when the
        connection ended."""
        data = self.sock.recv(65536)
        if not data:
            return None
        ended = []
        for event in self.conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                self.statuses[event.stream_id] = int(dict(event.headers)[b":status"])
            elif isinstance(event, h2.events.DataReceived):
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                ended.append((event.stream_id, self.statuses.pop(event.stream_id, None)))
            elif isinstance(event, (h2.events.StreamReset, h2.events.ConnectionTerminated)):
                return None
        self.flush()
        return ended


def writer(index):
    mine = tokens[index::THREADS]
    n = first_n + index
    turn = 0
    pending = {}  # stream id -> (apns-id, token, n, timestamp)
    try:
        connection = Connection()
        while True:
            # Keep IN_FLIGHT pushes open, each to another token (a thread has more tokens than that).
            while len(pending) < IN_FLIGHT:
                token = mine[turn % len(mine)]
                turn += 1
                apns_id = str(uuid.uuid4())
                timestamp = base_timestamp + n
                body = json.dumps({"aps": {"event": "update", "timestamp": timestamp, "content-state": {"n": n}}})
                pending[connection.send(token, body.encode(), apns_id)] = (apns_id, token, n, timestamp)
                n += THREADS
            ended = connection.answers()
            if ended is None:
                return  # the relay went away
            for stream_id, status in ended:
                apns_id, token, pushed_n, timestamp = pending.pop(stream_id)
                if status == 200:
                    emit(sys.stdout, json.dumps({"apnsId": apns_id, "token": token, "n": pushed_n, "timestamp": timestamp}))
                elif status != 429:
                    emit(sys.stderr, "push %s to %s answered %s" % (apns_id, token, status))
    except (OSError, ssl.SSLError, h2.exceptions.ProtocolError):
        return  # the relay was killed


threads = [threading.Thread(target=writer, args=(index,)) for index in range(THREADS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
