#!/usr/bin/env python3
"""Writes hpack-python-vectors.json: header blocks encoded by the Python `hpack` package (an independent
HPACK implementation), with the header list and the decoder's dynamic table after each block, for
RelayHTTPTests.HPACKPythonVectorTests to decode with ours.

Run from anywhere: python3 make_hpack_vectors.py  (needs `pip install hpack`; .ci/run installs it).
The output is deterministic for a given hpack version.
"""
import json
import os
import random

import hpack
from hpack import Decoder, Encoder


def request_sets(rng, count):
    paths = ["/", "/index.html", "/3/device/" + "ab" * 32, "/v1/stream?deviceId=d1", "/1/apps/com.x/channels"]
    sets = []
    for n in range(count):
        headers = [
            (":method", rng.choice(["GET", "POST", "DELETE"])),
            (":scheme", "https"),
            (":path", rng.choice(paths)),
            (":authority", rng.choice(["relay.example", "localhost:8443"])),
            ("apns-topic", "com.example.app.push-type.liveactivity"),
            ("apns-push-type", "liveactivity"),
            ("apns-priority", rng.choice(["5", "10"])),
            ("apns-id", "%08x-0000-4000-8000-%012x" % (rng.getrandbits(32), rng.getrandbits(48))),
        ]
        if n % 2 == 0:
            headers.append(("content-type", "application/json"))
        if n % 3 == 0:
            headers.append(("user-agent", "python-hpack-vectors/%d" % n))
        sets.append(headers)
    return sets


def response_sets(rng, count):
    sets = []
    for n in range(count):
        status = rng.choice(["200", "204", "400", "403", "404", "410", "429", "500"])
        headers = [(":status", status), ("apns-id", "%032x" % rng.getrandbits(128))]
        if status not in ("200", "204"):
            headers.append(("content-type", "application/json"))
            headers.append(("content-length", str(rng.randint(10, 99))))
        sets.append(headers)
    return sets


def churn_sets(rng, count):
    sets = []
    for _ in range(count):
        headers = []
        for _ in range(rng.randint(1, 12)):
            name = rng.choice(["x-a", "x-b", "x-long-name-%d" % rng.randint(0, 30), "cookie", "accept"])
            value = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789-_=;/ ") for _ in range(rng.randint(0, 120)))
            headers.append((name, value))
        sets.append(headers)
    return sets


def run_case(name, sets, huffman=True, sensitive=(), size_changes=None):
    """Encodes `sets` in order with one encoder; size_changes maps block number -> list of table sizes set
    on the encoder before that block (each is announced at the block's start)."""
    encoder = Encoder()
    decoder = Decoder(max_header_list_size=1 << 20)
    decoder.max_allowed_table_size = 65536
    blocks = []
    for number, headers in enumerate(sets):
        for size in (size_changes or {}).get(number, []):
            encoder.header_table_size = size
        triples = [(n, v, n in sensitive) for n, v in headers]
        data = encoder.encode(triples, huffman=huffman)
        decoded = decoder.decode(data)
        assert [(h[0], h[1]) for h in decoded] == headers, (name, number)
        table = [[n.decode("utf-8"), v.decode("utf-8")] for n, v in decoder.header_table.dynamic_entries]
        blocks.append({
            "hex": data.hex(),
            "headers": [[n, v] for n, v in headers],
            "never_indexed": [type(h).__name__ == "NeverIndexedHeaderTuple" for h in decoded],
            "table": table,
            "table_size": decoder.header_table._current_size,
            "table_max_size": decoder.header_table_size,
        })
    return {"name": name, "huffman": huffman, "blocks": blocks}


def main():
    rng = random.Random(7541)
    cases = [
        run_case("requests, Huffman", request_sets(rng, 12)),
        run_case("requests, raw", request_sets(rng, 12), huffman=False),
        run_case("responses, Huffman", response_sets(rng, 16)),
        run_case("sensitive never indexed", request_sets(rng, 6) + [[("authorization", "bearer abc.def.ghi")]],
                 sensitive={"authorization", ":path", "apns-id"}),
        run_case("table size changes", request_sets(rng, 10),
                 size_changes={0: [256], 3: [0], 4: [1024], 6: [100, 2048], 8: [8192]}),
        run_case("eviction churn, Huffman", churn_sets(rng, 24)),
        run_case("eviction churn, raw", churn_sets(rng, 12), huffman=False),
        run_case("names as sent and UTF-8 values", [
            [("X-Custom", "Value"), ("x-custom", "value")],
            [("x-utf8", "caf\u00e9 \u2603 \U0001F680"), ("X-Custom", "Value")],
            [("x-empty", ""), ("", "empty-name")],
        ]),
    ]
    document = {
        "generator": "make_hpack_vectors.py with python hpack %s" % hpack.__version__,
        "cases": cases,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hpack-python-vectors.json")
    with open(path, "w", encoding="utf-8") as out:
        # One block per line keeps the file diffable without indenting every string.
        out.write('{"generator": %s,\n "cases": [\n' % json.dumps(document["generator"]))
        for number, case in enumerate(document["cases"]):
            out.write('  {"name": %s, "huffman": %s, "blocks": [\n' % (json.dumps(case["name"]), json.dumps(case["huffman"])))
            lines = [json.dumps(block, separators=(",", ":")) for block in case["blocks"]]
            out.write(",\n".join("   " + line for line in lines))
            out.write("\n  ]}%s\n" % ("," if number + 1 < len(document["cases"]) else ""))
        out.write(" ]\n}\n")


if __name__ == "__main__":
    main()
