#!/usr/bin/env python3
"""Drives the relay with aioapns, an unmodified APNs client library, as a backend would.

aioapns is configured only as for Apple: the key (.p8 contents), key ID, team ID, topic and
`use_sandbox=True`, with an SSL context that trusts the relay's certificate (and, like aioapns
itself, sets no ALPN: the relay must accept HTTP/2 with prior knowledge, as APNs does). aioapns
has no host or port option: its sandbox host and port are class constants, so they are the only
thing patched here, to point at the relay.

    python3 aioapns_client.py --host localhost --port 8443 --cafile tls-cert.pem \
        --key dev-provider-key.p8 --key-id DEVKEY0000 --team DEVTEAM000 \
        --topic com.example.app.push-type.liveactivity < steps.json     # or --input steps.json

Steps (stdin or --input, JSON list), sent in order; a step with "repeat": n sends n copies at once:
    [{"name": "update", "token": "<hex>", "payload": {"aps": {...}}, "priority": 10,
      "topic": "<override>", "repeat": 1}, ...]
Output (stdout, JSON list): [{"name": ..., "results": [{"status": "200", "reason": null,
    "apnsId": "...", "timestamp": null}, ...]}, ...]. Exit status 0 when every step got an answer.
Requires aioapns (`pip install aioapns`).
"""

import argparse
import asyncio
import json
import logging
import ssl
import sys
import uuid

import aioapns.connection
from aioapns import APNs, NotificationRequest, PushType


async def send_steps(args, steps):
    aioapns.connection.APNsDevelopmentClientProtocol.APNS_SERVER = args.host
    aioapns.connection.APNsDevelopmentClientProtocol.APNS_PORT = args.port
    with open(args.key) as handle:
        key = handle.read()
    client = APNs(
        key=key, key_id=args.key_id, team_id=args.team, topic=args.topic, use_sandbox=True,
        ssl_context=ssl.create_default_context(cafile=args.cafile), max_connection_attempts=2)
    output = []
    for step in steps:
        requests = [
            NotificationRequest(
                device_token=step["token"], message=step["payload"], notification_id=str(uuid.uuid4()),
                priority=step.get("priority"), push_type=PushType.LIVEACTIVITY, apns_topic=step.get("topic"))
            for _ in range(step.get("repeat", 1))
        ]
        answers = await asyncio.wait_for(
            asyncio.gather(*(client.send_notification(request) for request in requests)), timeout=20)
        output.append({
            "name": step["name"],
            "results": [
                {"status": answer.status, "reason": answer.description, "apnsId": answer.notification_id,
                 "sent": request.notification_id, "timestamp": answer.timestamp}
                for request, answer in zip(requests, answers)
            ],
        })
    client.pool.close()
    return output


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="localhost")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cafile", required=True)
    parser.add_argument("--key", required=True, help="path of the .p8 provider key")
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--input", help="read the JSON input from this file instead of stdin")
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)  # aioapns logs every refusal at ERROR; the JSON says it all
    if args.input:
        with open(args.input) as handle:
            steps = json.load(handle)
    else:
        steps = json.load(sys.stdin)
    output = asyncio.run(send_steps(args, steps))
    json.dump(output, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
