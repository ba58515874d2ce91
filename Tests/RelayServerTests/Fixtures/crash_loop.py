#!/usr/bin/env python3
"""Crash loop: kills `activity-relay serve` with SIGKILL at seeded random moments under load,
restarts it on the same data directory each time, and checks that nothing acknowledged was lost.

Load in every round, all at once:
  - provider pushes over HTTP/2: `provider_writes.py` (4 connections, 8 streams open each) to the
    tokens of 40 activities;
  - app API writes: `app_writes.py` (4 keep-alive connections: activities, updates, devices,
    alarms, virtual clock advances);
  - --subscribers `GET /v1/stream` subscribers over HTTP/1.1 with ten different filters, each one
    reconnecting with `Last-Event-ID` (its last event's id) whenever its connection ends.
The relay is killed after a seeded random delay, then started again on a new port. Every round
ends with markers written through the app API (an update to each of four activities, then a clock
advance), and these checks:
  1. the global event sequence since the last round's markers, replayed from the durable log,
     has no gap and no duplicate (ids exactly last+1, last+2, ...);
  2. every push answered `200` has its `push.received` event (status 200) there, and every
     acknowledged app write its event (`activity.started`, `activity.updated` with its content
     state, `alarm.updated`, `clock` with its time); every created device is listed;
  3. every subscriber, live before the kill and resumed after it, received exactly the events a
     fresh replay of its filter gives between the two rounds' markers: none missing, none twice,
     in order, and never a `snapshot` (it was never further behind than the retained log).
After the last round every acknowledged push is also looked up in the push log (status 200).
`lost` in the last line counts acknowledged writes missing from the event log plus pushes
missing from the push log. Zero lost and no failed check is the only pass: exit status 0 then, 1 when any check failed, 2 for a setup failure.

usage: crash_loop.py --relay BIN [--kills 20] [--seed 1] [--sync] [--subscribers 100] [--keep]
  --sync: the config sets durability.syncEachCommit (fdatasync before every answer).
Retention is raised (events and pushes) so that nothing a check needs is trimmed, and the token
burst so that pushes are not refused with 429; durability is left at its default unless --sync.
Requires: Python 3.9+ and h2; curl is not needed.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sse_client  # noqa: E402

BUNDLE = "com.example.crash"
TOPIC = BUNDLE + ".push-type.liveactivity"
MARKED = 4  # activities that get a marker update every round


class Relay:
    """The relay process on `data`, restarted on a new port after each kill."""

    def __init__(self, binary, data, config):
        self.binary, self.data, self.config = binary, data, config
        self.process = None
        self.port = None
        self.log = open(os.path.join(os.path.dirname(data), "relay.log"), "ab")

    @property
    def ca(self):
        return os.path.join(self.data, "tls-cert.pem")

    def start(self):
        self.port = free_port()
        self.process = subprocess.Popen(
            [self.binary, "serve", "--data", self.data, "--listen", "127.0.0.1:%d" % self.port,
             "--clock", "virtual", "--config", self.config], stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("the relay exited with %s on start" % self.process.returncode)
            try:
                context = ssl.create_default_context(cafile=self.ca)
                connection = http.client.HTTPSConnection("localhost", self.port, context=context, timeout=2)
                connection.request("GET", "/healthz")
                if connection.getresponse().status == 200:
                    connection.close()
                    return
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.1)
        raise RuntimeError("the relay did not answer /healthz on port %d" % self.port)

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=30)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class API:
    def __init__(self, relay, admin):
        self.relay, self.admin = relay, admin

    def call(self, method, path, body=None, expect=(200, 201)):
        context = ssl.create_default_context(cafile=self.relay.ca)
        connection = http.client.HTTPSConnection("localhost", self.relay.port, context=context, timeout=30)
        try:
            connection.request(method, path, body=None if body is None else json.dumps(body),
                               headers={"authorization": "Bearer " + self.admin, "content-type": "application/json"})
            response = connection.getresponse()
            data = response.read()
            if response.status not in expect:
                raise RuntimeError("%s %s answered %d: %s" % (method, path, response.status, data[:300]))
            return json.loads(data) if data else None
        finally:
            connection.close()


class Subscriber(threading.Thread):
    """One logical subscriber: reads `query`'s events, reconnecting with its last id whenever the
    connection ends (a kill, or the relay cutting off a slow reader), to whatever port the relay
    listens on now. Keeps the events received since the last verified marker."""

    def __init__(self, state, query, marker, last_id):
        super().__init__(daemon=True)
        self.state, self.query, self.marker = state, query, marker
        self.last_id = last_id
        self.lock = threading.Lock()
        self.ids = []  # event ids received since the last verified marker, in arrival order
        self.snapshots = 0
        self.connections = 0
        self.errors = []

    def run(self):
        while not self.state.done:
            try:
                stream = sse_client.Subscription(self.state.relay.port, self.state.relay.ca, self.state.admin,
                                                 self.query, self.last_id, timeout=1)
            except (OSError, sse_client.StreamError) as error:
                if isinstance(error, sse_client.StreamError):
                    self.errors.append(str(error))
                time.sleep(0.05)
                continue
            self.connections += 1
            try:
                while not self.state.done:
                    try:
                        for event in stream.events():
                            with self.lock:
                                if event.type == "snapshot":
                                    self.snapshots += 1
                                    continue
                                self.ids.append(event.id)
                                self.last_id = event.id
                    except socket.timeout:
                        continue
            except (OSError, ConnectionError, ValueError):
                pass
            finally:
                stream.close()

    def take_until(self, marker_id):
        """The ids received up to and including `marker_id` (removed from the list), or None when
        `marker_id` has not arrived yet."""
        with self.lock:
            if marker_id not in self.ids:
                return None
            cut = self.ids.index(marker_id) + 1
            taken, self.ids = self.ids[:cut], self.ids[cut:]
            return taken


class State:
    def __init__(self, relay, admin):
        self.relay, self.admin = relay, admin
        self.done = False


def replay(state, query, last_id, until_id, timeout=120):
    """The events of `query` after `last_id` up to and including `until_id`, from a fresh
    subscriber resuming at `last_id` (so from the durable log)."""
    stream = sse_client.Subscription(state.relay.port, state.relay.ca, state.admin, query, last_id, timeout=5)
    events = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            try:
                for event in stream.events():
                    events.append(event)
                    if event.id == until_id or event.type == "snapshot":
                        return events
            except socket.timeout:
                continue
    finally:
        stream.close()
    raise RuntimeError("replay of %r from %d did not reach %d" % (query, last_id, until_id))


def write_markers(api, marked, round_number):
    """An update to each marked activity, then a clock advance; returns the clock's `now`. The
    update's timestamp is above every push of this round (whose counters start at round * 10^6),
    and below every push of the next, so it is applied and so are they."""
    timestamp = int(time.time()) + round_number * 1000000 + 999000
    for activity in marked:
        api.call("POST", "/v1/activities/%s/update" % activity,
                 {"contentState": {"marker": round_number}, "timestamp": timestamp})
    return api.call("POST", "/v1/clock", {"advanceBy": 1})["now"]


def find_markers(events, marked, round_number, now):
    """The ids of this round's marker events: {activity id: id, "clock": id}."""
    found = {}
    needle = '"marker":%d}' % round_number
    for event in events:
        if event.type == "activity.updated" and needle in event.data:
            activity = event.json()["activity"]["id"]
            if activity in marked:
                found[activity] = event.id
        elif event.type == "clock" and abs(event.json()["clock"]["now"] - now) < 1e-6:
            found["clock"] = event.id
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--relay", required=True)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sync", action="store_true")
    parser.add_argument("--subscribers", type=int, default=100)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)

    work = tempfile.mkdtemp(prefix="crash-loop-")
    data = os.path.join(work, "data")
    os.mkdir(data, 0o700)
    config = {"logLevel": "warning", "retention": {"events": 100000000, "pushes": 100000000},
              "rules": {"tokenBurst": {"capacity": 1000, "refillInterval": 0.01}}}
    if args.sync:
        config["durability"] = {"syncEachCommit": True}
    with open(os.path.join(work, "relay.json"), "w") as file:
        json.dump(config, file)
    relay = Relay(args.relay, data, os.path.join(work, "relay.json"))
    failures = []
    totals = {"lost": 0, "pushes": 0, "appWrites": 0, "events": 0, "resumes": 0}
    subscribers = []
    state = None
    try:
        relay.start()
        with open(os.path.join(data, "admin-key")) as file:
            admin = file.read().strip()
        state = State(relay, admin)
        api = API(relay, admin)
        device = api.call("POST", "/v1/devices", {})["deviceId"]
        activities, tokens = [], []
        for index in range(40):
            created = api.call("POST", "/v1/activities", {
                "deviceId": device, "bundleId": BUNDLE, "attributesType": "CrashAttributes",
                "attributes": {"index": index}, "contentState": {"n": 0}, "pushType": "token"})
            activities.append(created["id"])
            tokens.append(created["pushToken"])
        marked = activities[:MARKED]
        now = write_markers(api, marked, 0)
        markers = {}
        # The whole log so far, from the first event, to learn the markers' ids.
        stream_events = []
        stream = sse_client.Subscription(relay.port, relay.ca, admin, "", 0, timeout=5)
        try:
            for event in stream.events():
                stream_events.append(event)
                markers = find_markers(stream_events[-1:], marked, 0, now) | markers
                if "clock" in markers:
                    break
        finally:
            stream.close()
        if any(event.type == "snapshot" for event in stream_events) or stream_events[0].id != 1:
            raise RuntimeError("a replay from Last-Event-ID 0 did not start at event 1")

        # Ten filters; each has the marker it waits for: its own marked activity, the last marked
        # activity (device and bundle filters, which the clock may not match), or the clock.
        last = marked[-1]
        filters = [("", "clock", 5), ("types=push.received,clock", "clock", 5),
                   ("types=activity.updated,clock", "clock", 5),
                   ("types=activity.started,alarm.updated,clock", "clock", 15),
                   ("deviceId=" + device, last, 5), ("bundleId=" + BUNDLE, last, 5)]
        filters += [("activityId=" + activity, activity, 15) for activity in marked]
        weight = sum(share for _, _, share in filters)
        for query, marker, share in filters:
            for _ in range(max(1, round(share * args.subscribers / weight))):
                subscribers.append(Subscriber(state, query, marker, markers[marker]))
        for subscriber in subscribers:
            subscriber.start()

        jwt = subprocess.run([args.relay, "token", "--data", data], check=True, capture_output=True,
                             text=True).stdout.strip()
        acked_pushes = []
        print("crash loop: %d kills, seed %d, durability %s, %d subscribers" % (
            args.kills, args.seed, "syncEachCommit" if args.sync else "default", len(subscribers)), flush=True)
        for round_number in range(1, args.kills + 1):
            # Most kills come a random while after both writers' first acknowledgement (so the
            # relay is under load then, however slowly the scripts start on a busy machine); one in
            # four comes a random moment after the scripts start, acknowledged or not.
            early = rng.random() < 0.25
            delay = rng.uniform(0.0, 0.5) if early else rng.uniform(0.1, 2.0)
            port = relay.port
            provider = subprocess.Popen(
                ["python3", os.path.join(HERE, "provider_writes.py"), str(port), relay.ca, jwt, TOPIC,
                 str(round_number * 1000000)] + tokens, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            app = subprocess.Popen(
                ["python3", os.path.join(HERE, "app_writes.py"), str(port), relay.ca, admin, device],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            outputs = {name: {"out": [], "err": []} for name in ("provider_writes", "app_writes")}
            readers = []
            for name, process in (("provider_writes", provider), ("app_writes", app)):
                for stream, key in ((process.stdout, "out"), (process.stderr, "err")):
                    reader = threading.Thread(target=lambda s=stream, l=outputs[name][key]: l.extend(s), daemon=True)
                    reader.start()
                    readers.append(reader)
            if not early:
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and not all(o["out"] for o in outputs.values()):
                    time.sleep(0.01)
            time.sleep(delay)
            relay.kill()
            provider.wait(timeout=60)
            app.wait(timeout=60)
            for reader in readers:
                reader.join(timeout=30)
            round_failures = []
            for name, output in outputs.items():
                if "".join(output["err"]).strip():
                    round_failures.append("%s failed while the relay was up: %s" % (
                        name, "".join(output["err"]).strip()[:300]))
            relay.start()
            provider_out, app_out = "".join(outputs["provider_writes"]["out"]), "".join(outputs["app_writes"]["out"])
            pushes = [json.loads(line) for line in provider_out.splitlines() if line.strip()]
            writes = [json.loads(line) for line in app_out.splitlines() if line.strip()]
            acked_pushes += pushes

            now = write_markers(api, marked, round_number)
            # The unfiltered log since the last clock marker, until this round's clock marker.
            events = []
            stream = sse_client.Subscription(relay.port, relay.ca, admin, "", markers["clock"], timeout=5)
            new_markers = {}
            try:
                deadline = time.monotonic() + 120
                while "clock" not in new_markers and time.monotonic() < deadline:
                    try:
                        for event in stream.events():
                            events.append(event)
                            new_markers |= find_markers([event], marked, round_number, now)
                            if "clock" in new_markers:
                                break
                    except socket.timeout:
                        continue
            finally:
                stream.close()
            ids = [event.id for event in events]
            if any(event.type == "snapshot" for event in events) or "clock" not in new_markers:
                round_failures.append("the replay since the last markers did not reach this round's")
            elif ids != list(range(markers["clock"] + 1, new_markers["clock"] + 1)):
                seen = set()
                duplicates = sorted({i for i in ids if i in seen or seen.add(i)})
                missing = sorted(set(range(markers["clock"] + 1, new_markers["clock"] + 1)) - set(ids))
                round_failures.append("event ids not consecutive: missing %s, duplicated %s" % (
                    missing[:10], duplicates[:10]))

            # Every acknowledged write has its event in the durable log.
            pushed, started, updated, alarms, clocks = set(), set(), set(), set(), []
            for event in events:
                if event.type == "push.received":
                    push = event.json()["push"]
                    if push["status"] == 200:
                        pushed.add(push["apnsId"])
                elif event.type == "activity.started":
                    started.add(event.json()["activity"]["id"])
                elif event.type == "activity.updated":
                    activity = event.json()["activity"]
                    updated.add((activity["id"], json.dumps(activity["contentState"], sort_keys=True)))
                elif event.type == "alarm.updated":
                    alarms.add(event.json()["alarm"]["id"])
                elif event.type == "clock":
                    clocks.append(event.json()["clock"]["now"])
            lost = [p["apnsId"] for p in pushes if p["apnsId"] not in pushed]
            devices = {d.get("deviceId") for d in
                       api.call("GET", "/v1/devices")["items"]}
            for write in writes:
                kind = write["kind"]
                present = (
                    write["id"] in started if kind == "activity"
                    else (write["id"], json.dumps({"n": write["n"]})) in updated if kind == "update"
                    else write["id"] in alarms if kind == "alarm"
                    else any(abs(c - write["now"]) < 1e-6 for c in clocks) if kind == "clock"
                    else write["id"] in devices)
                if not present:
                    lost.append("%s %s" % (kind, write.get("id", write.get("now"))))
            totals["lost"] += len(lost)
            if lost:
                round_failures.append("%d acknowledged writes missing: %s" % (len(lost), lost[:5]))

            # Every subscriber got exactly its filter's events between the two rounds' markers.
            references = {}
            resumed = 0
            for query, marker, _ in filters:
                events_of_filter = replay(state, query, markers[marker], new_markers[marker])
                if any(event.type == "snapshot" for event in events_of_filter):
                    round_failures.append("the replay of %r gave a snapshot" % query)
                references[query] = [event.id for event in events_of_filter]
            deadline = time.monotonic() + 180
            pending = list(subscribers)
            while pending and time.monotonic() < deadline:
                still = []
                for subscriber in pending:
                    received = subscriber.take_until(new_markers[subscriber.marker])
                    if received is None:
                        still.append(subscriber)
                    elif received != references[subscriber.query]:
                        expected = references[subscriber.query]
                        missing = sorted(set(expected) - set(received))
                        unexpected = sorted(set(received) - set(expected))
                        round_failures.append("subscriber %r: %d events, expected %d (%s)" % (
                            subscriber.query, len(received), len(expected),
                            "missing %s, unexpected %s" % (missing[:5], unexpected[:5]) if missing or unexpected
                            else "the same ids, repeated or out of order"))
                pending = still
                time.sleep(0.1)
            for subscriber in pending:
                round_failures.append("subscriber %r never received its marker" % subscriber.query)
            for subscriber in subscribers:
                if subscriber.snapshots:
                    round_failures.append("subscriber %r got a snapshot on resuming" % subscriber.query)
                    subscriber.snapshots = 0
                if subscriber.errors:
                    round_failures.append("subscriber %r: %s" % (subscriber.query, subscriber.errors[:2]))
                    subscriber.errors = []
                resumed += subscriber.connections
                subscriber.connections = 0

            markers = new_markers
            totals["pushes"] += len(pushes)
            totals["appWrites"] += len(writes)
            totals["events"] += len(events)
            totals["resumes"] += resumed
            print("round %2d: killed %.2f s after %s; acknowledged %d pushes, %d app writes; %d events, "
                  "%d subscriber connections; %s" % (
                      round_number, delay, "the scripts started" if early else "the first acknowledgements",
                      len(pushes), len(writes), len(events), resumed,
                      "ok" if not round_failures else "FAILED"), flush=True)
            for failure in round_failures:
                print("  " + failure, flush=True)
            failures += ["round %d: %s" % (round_number, failure) for failure in round_failures]

        # Every acknowledged push is in the push log with status 200.
        logged = {}
        before = None
        while True:
            page = api.call("GET", "/v1/pushes?bundleId=%s&limit=1000%s" % (
                BUNDLE, "" if before is None else "&before=%d" % before))
            for record in page["items"]:
                logged[record["apnsId"]] = record["status"]
            before = page.get("nextBefore")
            if before is None:
                break
        missing = [p["apnsId"] for p in acked_pushes if logged.get(p["apnsId"]) != 200]
        totals["lost"] += len(missing)
        if missing:
            failures.append("%d acknowledged pushes not in the push log with status 200: %s" % (
                len(missing), missing[:5]))
        state.done = True
        status = relay.stop()
        if status != 0:
            failures.append("the relay exited with %d on SIGTERM" % status)
    except (RuntimeError, OSError, subprocess.SubprocessError, ValueError, KeyError) as error:
        print("crash loop: setup or harness failure: %r" % error, flush=True)
        traceback.print_exc()
        if relay.process and relay.process.poll() is None:
            relay.process.kill()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        sys.exit(2)
    finally:
        if state:
            state.done = True
    print("crash loop: %d kills, %d pushes and %d app writes acknowledged, %d events checked, "
          "%d subscriber connections; lost %d; failed checks %d; %s" % (
              args.kills, totals["pushes"], totals["appWrites"], totals["events"], totals["resumes"],
              totals["lost"], len(failures), "PASS" if not failures else "FAIL"), flush=True)
    if args.keep:
        print("work directory kept: " + work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(0 if not failures else 1)


main()
