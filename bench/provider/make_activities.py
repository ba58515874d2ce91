#!/usr/bin/env python3
"""Creates one device (or --devices D, the activities dealt over them in turn) and N Live
Activities with update push tokens through the relay's app API, and writes h2load's URI list: one
`https://HOST:PORT/3/device/<token>` line per activity.

    python3 make_activities.py --base https://127.0.0.1:8443 --cafile DATA/tls-cert.pem \
        --admin-key="$(cat DATA/admin-key)" --count 1000 --bundle com.example.bench --out uris.txt

Uses one HTTP/1.1 keep-alive connection (Python standard library only). Exits 1 with the relay's
answer on the first request that does not succeed.
"""

import argparse
import http.client
import json
import ssl
import sys
import urllib.parse


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="https://host:port of the relay")
    parser.add_argument("--cafile", required=True)
    parser.add_argument("--admin-key", required=True)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--devices", type=int, default=1)
    parser.add_argument("--bundle", default="com.example.bench")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    url = urllib.parse.urlsplit(args.base)
    context = ssl.create_default_context(cafile=args.cafile)
    connection = http.client.HTTPSConnection(url.hostname, url.port, context=context, timeout=30)
    headers = {"authorization": f"Bearer {args.admin_key}", "content-type": "application/json"}

    def post(path, body):
        connection.request("POST", path, body=json.dumps(body), headers=headers)
        response = connection.getresponse()
        data = response.read()
        if response.status not in (200, 201):
            print(f"make_activities.py: POST {path} answered {response.status}: {data[:300]!r}", file=sys.stderr)
            sys.exit(1)
        return json.loads(data)

    devices = [post("/v1/devices", {})["deviceId"] for _ in range(max(1, args.devices))]
    tokens = []
    for index in range(args.count):
        activity = post("/v1/activities", {
            "deviceId": devices[index % len(devices)], "bundleId": args.bundle, "attributesType": "BenchAttributes",
            "attributes": {"index": index}, "contentState": {"progress": 0}, "pushType": "token",
        })
        tokens.append(activity["pushToken"])
    with open(args.out, "w") as handle:
        for token in tokens:
            handle.write(f"{args.base}/3/device/{token}\n")
    print(f"{len(tokens)} activities with push tokens on {len(devices)} device(s)")


if __name__ == "__main__":
    main()
