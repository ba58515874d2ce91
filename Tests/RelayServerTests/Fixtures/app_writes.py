#!/usr/bin/env python3
"""Issues app-API writes to a relay as fast as it answers, from several connections at once,
until the relay goes away (the crash test kills it with SIGKILL).

Every acknowledged write (a 2xx answer) is printed at once as one line of JSON, so the test knows
exactly what the relay promised was durable:
  {"kind": "device", "id": ...}
  {"kind": "activity", "id": ...}
  {"kind": "update", "id": <activity>, "n": <counter>}
  {"kind": "alarm", "id": ...}
  {"kind": "clock", "now": ...}

usage: app_writes.py PORT CAFILE ADMIN_KEY DEVICE_ID [THREADS]
"""
import http.client
import json
import ssl
import sys
import threading

port, cafile, admin, device = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
threads = int(sys.argv[5]) if len(sys.argv) > 5 else 4
context = ssl.create_default_context(cafile=cafile)
print_lock = threading.Lock()


def ack(record):
    with print_lock:
        sys.stdout.write(json.dumps(record) + "\n")
        sys.stdout.flush()


def writer(worker):
    connection = http.client.HTTPSConnection("localhost", port, context=context, timeout=10)
    headers = {"authorization": "Bearer " + admin, "content-type": "application/json"}

    def post(path, body):
        connection.request("POST", path, body=json.dumps(body), headers=headers)
        response = connection.getresponse()
        data = response.read()
        if response.status // 100 != 2:
            raise RuntimeError("%s answered %d: %s" % (path, response.status, data[:200]))
        return json.loads(data)

    activity = None
    n = 0
    try:
        while True:
            n += 1
            if n % 5 == 1:
                created = post("/v1/activities", {
                    "deviceId": device, "bundleId": "com.example.crash", "attributesType": "CrashAttributes",
                    "attributes": {"worker": worker}, "contentState": {"n": n}})
                activity = created["id"]
                ack({"kind": "activity", "id": activity})
            elif n % 5 == 2:
                post("/v1/activities/%s/update" % activity, {"contentState": {"n": n}})
                ack({"kind": "update", "id": activity, "n": n})
            elif n % 5 == 3:
                created = post("/v1/devices", {})
                ack({"kind": "device", "id": created["deviceId"]})
            elif n % 5 == 4:
                created = post("/v1/alarms", {
                    "deviceId": device, "bundleId": "com.example.crash", "countdownDuration": {"preAlert": 3600},
                    "presentation": {"alert": {"title": "Crash"}, "countdown": {"title": "Soon"}}})
                ack({"kind": "alarm", "id": created["id"]})
            else:
                clock = post("/v1/clock", {"advanceBy": 1})
                ack({"kind": "clock", "now": clock["now"]})
    except (OSError, http.client.HTTPException):
        return  # the relay was killed
    except RuntimeError as error:
        with print_lock:
            sys.stderr.write(str(error) + "\n")


workers = [threading.Thread(target=writer, args=(index,)) for index in range(threads)]
for worker in workers:
    worker.start()
for worker in workers:
    worker.join()
