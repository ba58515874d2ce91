#!/usr/bin/env python3
"""Opens many idle TLS connections to a loopback server and holds them.

    idle_clients.py --port N --count 10000 [--mode h2|tls] [--batch 200] [--hold 120]

Connections are opened in batches of concurrent handshakes. In `h2` mode each connection
negotiates ALPN h2, sends the HTTP/2 preface and an empty SETTINGS frame, and acknowledges the
server's SETTINGS: an idle HTTP/2 client connection. In `tls` mode the TLS handshake is all.
Prints `open OK FAILED` once every connection is settled (the first failure on stderr before it), then holds them until SIGTERM/SIGINT
or `--hold` seconds, and closes them all. Loopback only; the certificate is not verified.
"""
import argparse
import asyncio
import signal
import ssl
import sys

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
EMPTY_SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
SETTINGS_ACK = b"\x00\x00\x00\x04\x01\x00\x00\x00\x00"


class IdleClient(asyncio.Protocol):
    """One connection: in h2 mode, settled once the server's SETTINGS has been acknowledged."""

    def __init__(self, mode, settled):
        self.mode = mode
        self.settled = settled
        self.buffer = b""
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport
        if self.mode == "tls":
            self.settled.set_result(True)
            return
        transport.write(PREFACE + EMPTY_SETTINGS)

    def data_received(self, data):
        if self.settled.done():
            return
        self.buffer += data
        # Frames: 3-byte length, type, flags, 4-byte stream id. Look for SETTINGS without ACK.
        while len(self.buffer) >= 9:
            length = int.from_bytes(self.buffer[0:3], "big")
            if len(self.buffer) < 9 + length:
                return
            frame_type, flags = self.buffer[3], self.buffer[4]
            self.buffer = self.buffer[9 + length:]
            if frame_type == 4 and flags & 1 == 0:
                self.transport.write(SETTINGS_ACK)
                self.buffer = b""
                self.settled.set_result(True)
                return

    def connection_lost(self, exc):
        if not self.settled.done():
            self.settled.set_result(False)


async def open_one(loop, args, context):
    settled = loop.create_future()
    try:
        transport, _ = await asyncio.wait_for(
            loop.create_connection(lambda: IdleClient(args.mode, settled), "127.0.0.1", args.port,
                                   ssl=context, server_hostname="localhost"),
            timeout=30)
        ok = await asyncio.wait_for(settled, timeout=30)
    except (OSError, ssl.SSLError, asyncio.TimeoutError) as error:
        return None, repr(error)
    if not ok:
        transport.close()
        return None, "closed by the server before settling"
    if args.mode == "h2" and transport.get_extra_info("ssl_object").selected_alpn_protocol() != "h2":
        transport.close()
        return None, "server did not choose h2"
    return transport, None


async def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--count", type=int, default=10000)
    parser.add_argument("--mode", choices=["h2", "tls"], default="h2")
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--hold", type=float, default=120)
    args = parser.parse_args()

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.set_alpn_protocols(["h2"] if args.mode == "h2" else ["http/1.1"])

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, stop.set)

    transports, failures, first_error = [], 0, None
    for start in range(0, args.count, args.batch):
        if stop.is_set():
            break
        size = min(args.batch, args.count - start)
        for transport, error in await asyncio.gather(*(open_one(loop, args, context) for _ in range(size))):
            if transport is None:
                failures += 1
                first_error = first_error or error
            else:
                transports.append(transport)
    if first_error:  # before the summary line, which the caller waits for
        print(f"{failures} failed; first failure: {first_error}", file=sys.stderr, flush=True)
    print(f"open {len(transports)} {failures}", flush=True)
    try:
        await asyncio.wait_for(stop.wait(), timeout=args.hold)
    except asyncio.TimeoutError:
        pass
    for transport in transports:
        transport.abort()


if __name__ == "__main__":
    asyncio.run(main())
