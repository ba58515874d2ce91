#!/usr/bin/env python3
"""A backend's retry loop around aioapns (an unmodified APNs client library) while the relay injects faults.

Before each step the script adds the step's fault rule with `POST /v1/faults` (admin key), then sends
the step's push with aioapns, configured only as for Apple (see aioapns_client.py). A `200` ends the
step. A 429 or 5xx answer, or an aioapns exception (a dropped connection, a refused handshake once
aioapns' own attempts are spent), is retried with the same apns-id after `retryDelay` seconds, up to
`maxAttempts` times; with "retry": false the first answer ends the step.

    python3 aioapns_retry.py --host localhost --port 8443 --cafile tls-cert.pem --admin-key KEY \
        --key dev-provider-key.p8 --key-id DEVKEY0000 --team DEVTEAM000 \
        --topic com.example.app.push-type.liveactivity --input steps.json

Steps (JSON list): [{"name": ..., "token": "<hex>", "payload": {...}, "fault": {rule} | null,
    "retry": true, "maxAttempts": 8, "retryDelay": 0.3, "newClient": false}, ...]
("newClient" starts a new aioapns client, so the step opens a new connection.)
Output (stdout, JSON list): [{"name", "apnsId", "faultId", "attempts": [{"status", "reason"} |
    {"error": "<exception class>"}], "final": "<last status or null>"}, ...].
Requires aioapns (`pip install aioapns`).
"""

import argparse
import asyncio
import json
import logging
import ssl
import sys
import urllib.request
import uuid

import aioapns.connection
from aioapns import APNs, NotificationRequest, PushType

RETRYABLE = {"429", "500", "503"}


def add_fault(args, context, rule):
    request = urllib.request.Request(
        "https://%s:%d/v1/faults" % (args.host, args.port), data=json.dumps(rule).encode(), method="POST",
        headers={"authorization": "bearer " + args.admin_key, "content-type": "application/json"})
    with urllib.request.urlopen(request, context=context, timeout=10) as response:
        return json.load(response)["id"]


def make_client(args, context):
    with open(args.key) as handle:
        key = handle.read()
    return APNs(
        key=key, key_id=args.key_id, team_id=args.team, topic=args.topic, use_sandbox=True,
        ssl_context=context, max_connection_attempts=2)


async def send_steps(args, steps):
    aioapns.connection.APNsDevelopmentClientProtocol.APNS_SERVER = args.host
    aioapns.connection.APNsDevelopmentClientProtocol.APNS_PORT = args.port
    context = ssl.create_default_context(cafile=args.cafile)
    client = make_client(args, context)
    output = []
    for step in steps:
        if step.get("newClient"):
            client.pool.close()
            client = make_client(args, context)
        fault_id = add_fault(args, context, step["fault"]) if step.get("fault") else None
        apns_id = str(uuid.uuid4())
        attempts = []
        final = None
        for _ in range(step.get("maxAttempts", 8)):
            request = NotificationRequest(
                device_token=step["token"], message=step["payload"], notification_id=apns_id,
                priority=step.get("priority", 10), push_type=PushType.LIVEACTIVITY)
            try:
                answer = await asyncio.wait_for(client.send_notification(request), timeout=30)
                attempts.append({"status": answer.status, "reason": answer.description})
                final = answer.status
            except Exception as error:  # what a backend sees of a dropped or refused connection
                attempts.append({"error": type(error).__name__})
                final = None
            if final == "200" or not step.get("retry", True) or (final is not None and final not in RETRYABLE):
                break
            await asyncio.sleep(step.get("retryDelay", 0.3))
        output.append({"name": step["name"], "apnsId": apns_id, "faultId": fault_id, "attempts": attempts,
                       "final": final})
    client.pool.close()
    return output


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="localhost")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cafile", required=True)
    parser.add_argument("--admin-key", required=True)
    parser.add_argument("--key", required=True, help="path of the .p8 provider key")
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--input", required=True)
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)  # aioapns logs every refusal and drop; the JSON says it all
    with open(args.input) as handle:
        steps = json.load(handle)
    json.dump(asyncio.run(send_steps(args, steps)), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
