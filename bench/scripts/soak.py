#!/usr/bin/env python3
"""Soak: steady provider pushes into a running relay for N minutes, with event-stream subscribers
attached and connections churning, sampling the relay's RSS, open descriptors and data directory
size once a minute.

Load (all against the relay at --port, trusting --cafile):
  - pushes: --rate live-activity update pushes a second over HTTP/2 (h2 over TLS), spread over
    --push-connections connections, each reopened every 15-45 s; tokens of --activities activities
  - subscribers: --subscribers HTTP/1.1 event streams, each filtered to one activity, and two
    that take every push.received event; each reconnects every 10-60 s with Last-Event-ID
  - app API: a new HTTPS connection every second that reads the activity list
Prints one markdown row per minute, then a summary and a verdict on the last two thirds of the
run (after warm-up): each gauge's growth from its first to its last sample there. Exits 1 when a
push went unanswered or failed, or a subscriber saw its ids go backwards.

usage: soak.py --port P --cafile CA --admin KEY --jwt JWT --pid PID --data DIR [--minutes 30]
               [--rate 300] [--activities 100] [--subscribers 50] [--push-connections 4] [--seed 1]
Requires: Python 3.9+ and h2.
"""
import argparse
import http.client
import json
import os
import random
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests",
                                "RelayServerTests", "Fixtures"))
import sse_client  # noqa: E402

BUNDLE = "com.example.soak"
TOPIC = BUNDLE + ".push-type.liveactivity"

args = None
stop = threading.Event()
lock = threading.Lock()
counters = {"acked": 0, "refused": 0, "failed": 0, "pushConnections": 0, "events": 0, "streamConnections": 0,
            "outOfOrder": 0, "appRequests": 0, "appFailures": 0}


def count(name, by=1):
    with lock:
        counters[name] += by


def api(method, path, body=None):
    context = ssl.create_default_context(cafile=args.cafile)
    connection = http.client.HTTPSConnection("localhost", args.port, context=context, timeout=10)
    try:
        headers = {"authorization": "Bearer " + args.admin, "content-type": "application/json"}
        connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = connection.getresponse()
        data = response.read()
        if response.status // 100 != 2:
            raise RuntimeError("%s %s answered %d: %s" % (method, path, response.status, data[:200]))
        return json.loads(data)
    finally:
        connection.close()


def push_connection(context):
    raw = socket.create_connection(("127.0.0.1", args.port), timeout=10)
    sock = context.wrap_socket(raw, server_hostname="localhost")
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    count("pushConnections")
    return sock, conn


def pusher(index, tokens, rng):
    """Sends this connection's share of the rate, paced, at most 16 streams open; reopens the
    connection every 15-45 s."""
    context = ssl.create_default_context(cafile=args.cafile)
    context.set_alpn_protocols(["h2"])
    interval = args.push_connections / args.rate
    sequence = 0
    while not stop.is_set():
        sock, conn = push_connection(context)
        sock.settimeout(0.05)
        reopen_at = time.monotonic() + rng.uniform(15, 45)
        next_send = time.monotonic()
        statuses, open_streams = {}, set()
        try:
            while not stop.is_set() and time.monotonic() < reopen_at:
                now = time.monotonic()
                while now >= next_send and len(open_streams) < 16:
                    token = tokens[sequence % len(tokens)]
                    sequence += 1
                    stream_id = conn.get_next_available_stream_id()
                    body = json.dumps({"aps": {"event": "update", "timestamp": int(time.time()),
                                               "content-state": {"n": sequence, "by": index}}}).encode()
                    conn.send_headers(stream_id, [
                        (":method", "POST"), (":scheme", "https"), (":authority", "localhost"),
                        (":path", "/3/device/" + token), ("authorization", "bearer " + args.jwt),
                        ("apns-push-type", "liveactivity"), ("apns-topic", TOPIC), ("apns-priority", "10"),
                        ("apns-id", str(uuid.uuid4())), ("content-type", "application/json")])
                    conn.send_data(stream_id, body, end_stream=True)
                    open_streams.add(stream_id)
                    next_send += interval
                if now - next_send > 1:
                    next_send = now  # behind by more than a second: do not burst to catch up
                sock.sendall(conn.data_to_send())
                try:
                    data = sock.recv(65536)
                except (socket.timeout, ssl.SSLWantReadError):
                    continue
                if not data:
                    raise ConnectionError("push connection closed by the relay")
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.ResponseReceived):
                        statuses[event.stream_id] = int(dict(event.headers)[b":status"])
                    elif isinstance(event, h2.events.DataReceived):
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        open_streams.discard(event.stream_id)
                        status = statuses.pop(event.stream_id, None)
                        count("acked" if status == 200 else "refused" if status == 429 else "failed")
                    elif isinstance(event, (h2.events.StreamReset, h2.events.ConnectionTerminated)):
                        raise ConnectionError("push stream reset: %r" % event)
                sock.sendall(conn.data_to_send())
            # Let the open streams finish, then close the connection cleanly.
            sock.settimeout(5)
            while open_streams:
                data = sock.recv(65536)
                if not data:
                    break
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.ResponseReceived):
                        statuses[event.stream_id] = int(dict(event.headers)[b":status"])
                    elif isinstance(event, h2.events.StreamEnded):
                        open_streams.discard(event.stream_id)
                        status = statuses.pop(event.stream_id, None)
                        count("acked" if status == 200 else "refused" if status == 429 else "failed")
                sock.sendall(conn.data_to_send())
            conn.close_connection()
            sock.sendall(conn.data_to_send())
        except (OSError, ssl.SSLError, h2.exceptions.ProtocolError, ConnectionError) as error:
            count("failed", len(open_streams))
            sys.stderr.write("pusher %d: %s\n" % (index, error))
        finally:
            sock.close()


def subscriber(query, rng):
    last_id = None
    while not stop.is_set():
        try:
            stream = sse_client.Subscription(args.port, args.cafile, args.admin, query, last_id, timeout=2)
        except (OSError, sse_client.StreamError) as error:
            sys.stderr.write("subscriber %s: %s\n" % (query, error))
            time.sleep(1)
            continue
        count("streamConnections")
        until = time.monotonic() + rng.uniform(10, 60)
        try:
            for event in stream.events():
                if event.id is not None:
                    if last_id is not None and event.id <= last_id:
                        count("outOfOrder")
                    last_id = event.id
                count("events")
                if stop.is_set() or time.monotonic() > until:
                    break
        except socket.timeout:
            pass  # quiet for 2 s; reconnect
        except (OSError, ConnectionError, ValueError) as error:
            sys.stderr.write("subscriber %s: %s\n" % (query, error))
        finally:
            stream.close()


def app_churn():
    while not stop.is_set():
        try:
            api("GET", "/v1/activities?bundleId=" + BUNDLE)
            count("appRequests")
        except (OSError, RuntimeError, http.client.HTTPException) as error:
            count("appFailures")
            sys.stderr.write("app: %s\n" % error)
        stop.wait(1)


def sample():
    with open("/proc/%d/status" % args.pid) as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    fds = len(os.listdir("/proc/%d/fd" % args.pid))
    size = 0
    for root, _, files in os.walk(args.data):
        for name in files:
            try:
                size += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return rss, fds, size


def main():
    global args
    parser = argparse.ArgumentParser()
    for name in ("--cafile", "--admin", "--jwt", "--data"):
        parser.add_argument(name, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--rate", type=float, default=300)
    parser.add_argument("--activities", type=int, default=100)
    parser.add_argument("--subscribers", type=int, default=50)
    parser.add_argument("--push-connections", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    device = api("POST", "/v1/devices", {})["deviceId"]
    activities, tokens = [], []
    for index in range(args.activities):
        created = api("POST", "/v1/activities", {
            "deviceId": device, "bundleId": BUNDLE, "attributesType": "SoakAttributes",
            "attributes": {"index": index}, "contentState": {"n": 0}, "pushType": "token"})
        activities.append(created["id"])
        tokens.append(created["pushToken"])

    threads = []
    for index in range(args.push_connections):
        threads.append(threading.Thread(target=pusher, args=(index, tokens[index::args.push_connections],
                                                             random.Random(rng.random()))))
    queries = ["activityId=" + activities[index % len(activities)] for index in range(args.subscribers)]
    queries += ["types=push.received"] * 2
    for query in queries:
        threads.append(threading.Thread(target=subscriber, args=(query, random.Random(rng.random()))))
    threads.append(threading.Thread(target=app_churn))
    for thread in threads:
        thread.daemon = True
        thread.start()

    print("| minute | RSS (MiB) | open fds | data dir (MiB) | pushes 200 | events received | push conns | stream conns |")
    print("| -----: | --------: | -------: | -------------: | ---------: | --------------: | ---------: | -----------: |")
    samples = []
    started = time.monotonic()
    minutes = max(1, int(round(args.minutes)))
    for minute in range(1, minutes + 1):
        stop.wait(max(0, started + 60 * minute * args.minutes / minutes - time.monotonic()))
        rss, fds, size = sample()
        with lock:
            snapshot = dict(counters)
        samples.append((rss, fds, size))
        print("| %d | %.1f | %d | %.1f | %d | %d | %d | %d |" % (
            minute, rss / 1024, fds, size / 1048576, snapshot["acked"], snapshot["events"],
            snapshot["pushConnections"], snapshot["streamConnections"]), flush=True)
    stop.set()
    for thread in threads:
        thread.join(timeout=10)

    elapsed = time.monotonic() - started
    warm = samples[len(samples) // 3:] if len(samples) >= 3 else samples
    print()
    print("pushes answered 200: %d (%.0f/s; goal %.0f/s), 429: %d, failed or unanswered: %d" % (
        counters["acked"], counters["acked"] / elapsed, args.rate, counters["refused"], counters["failed"]))
    print("events received: %d over %d stream connections; ids going backwards: %d" % (
        counters["events"], counters["streamConnections"], counters["outOfOrder"]))
    print("app API requests on fresh connections: %d, failed: %d" % (counters["appRequests"], counters["appFailures"]))
    names = ("RSS", "open fds", "data dir")
    for index, name in enumerate(names):
        first, last = warm[0][index], warm[-1][index]
        low, high = min(s[index] for s in warm), max(s[index] for s in warm)
        print("%s after warm-up (from minute %d): first %d, last %d, min %d, max %d, growth %+.1f%%" % (
            name, len(samples) - len(warm) + 1, first, last, low, high, 100.0 * (last - first) / max(first, 1)))
    ok = counters["failed"] == 0 and counters["outOfOrder"] == 0 and counters["appFailures"] == 0
    print("soak: " + ("PASS" if ok else "FAIL") + " (no failed push, no failed app request, ids in order)")
    sys.exit(0 if ok else 1)


main()
