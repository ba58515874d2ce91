#!/usr/bin/env python3
"""Many event-stream subscribers as HTTP/2 streams multiplexed over a few TLS connections.

Opens CONNECTIONS connections (ALPN h2, the relay's certificate verified), each with STREAMS
concurrent `GET PATH` streams, and reads Server-Sent Events until every stream has EVENTS events
or TIMEOUT seconds pass. Prints one JSON line:
  {"streams", "ok", "complete", "inOrder", "minEvents", "maxEvents", "ids"}
where "ok" counts 200 responses, "complete" streams with exactly EVENTS events, "inOrder" streams
whose ids strictly increase, and "ids" the sorted set of distinct event ids seen.

usage: stream_fanout.py --port P --cafile CA --key KEY [--connections 10] [--streams 100]
                        [--events N] [--timeout 60] [--path /v1/stream]
"""
import argparse
import asyncio
import json
import ssl

import h2.config
import h2.connection
import h2.events


class Subscriber:
    def __init__(self):
        self.status = None
        self.buffer = b""
        self.ids = []

    def feed(self, data):
        self.buffer += data.replace(b"\r\n", b"\n")
        while b"\n\n" in self.buffer:
            block, self.buffer = self.buffer.split(b"\n\n", 1)
            event_id = None
            has_data = False
            for line in block.split(b"\n"):
                if line.startswith(b"id:"):
                    event_id = int(line[3:].strip())
                elif line.startswith(b"data:"):
                    has_data = True
            if has_data and event_id is not None:
                self.ids.append(event_id)


async def run_connection(args, subscribers, done):
    ctx = ssl.create_default_context(cafile=args.cafile)
    ctx.set_alpn_protocols(["h2"])
    reader, writer = await asyncio.open_connection("127.0.0.1", args.port, ssl=ctx, server_hostname="localhost")
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    conn.increment_flow_control_window(16 * 1024 * 1024)
    mine = {}
    for _ in range(args.streams):
        stream_id = conn.get_next_available_stream_id()
        conn.send_headers(stream_id, [
            (":method", "GET"), (":scheme", "https"), (":authority", "localhost"), (":path", args.path),
            ("authorization", "bearer " + args.key), ("accept", "text/event-stream"),
        ], end_stream=True)
        subscriber = Subscriber()
        mine[stream_id] = subscriber
        subscribers.append(subscriber)
    writer.write(conn.data_to_send())
    await writer.drain()
    while not done.is_set():
        try:
            data = await asyncio.wait_for(reader.read(65536), timeout=0.2)
        except asyncio.TimeoutError:
            continue
        if not data:
            break
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                mine[event.stream_id].status = dict(event.headers).get(b":status")
            elif isinstance(event, h2.events.DataReceived):
                mine[event.stream_id].feed(event.data)
                conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        writer.write(conn.data_to_send())
        await writer.drain()
    writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cafile", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--connections", type=int, default=10)
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument("--events", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--path", default="/v1/stream")
    args = parser.parse_args()

    subscribers = []
    done = asyncio.Event()
    tasks = [asyncio.create_task(run_connection(args, subscribers, done)) for _ in range(args.connections)]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + args.timeout
    total = args.connections * args.streams
    while loop.time() < deadline:
        if len(subscribers) == total and all(len(s.ids) >= args.events for s in subscribers):
            break
        if any(t.done() and t.exception() for t in tasks):
            break
        await asyncio.sleep(0.05)
    done.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    counts = [len(s.ids) for s in subscribers] or [0]
    print(json.dumps({
        "streams": len(subscribers),
        "ok": sum(1 for s in subscribers if s.status == b"200"),
        "complete": sum(1 for s in subscribers if len(s.ids) == args.events),
        "inOrder": sum(1 for s in subscribers if all(a < b for a, b in zip(s.ids, s.ids[1:]))),
        "minEvents": min(counts),
        "maxEvents": max(counts),
        "ids": sorted({i for s in subscribers for i in s.ids}),
    }))


asyncio.run(main())
