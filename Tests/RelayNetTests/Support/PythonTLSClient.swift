/// The Python `ssl`-module client the live-server tests drive, run as `python3 -c script MODE ...`.
///
/// Kept as a Swift string so the test target has no unhandled resource files. Modes:
/// - `alpn PORT CAFILE HOST PROTOCOLS MESSAGE`: one verified connection offering PROTOCOLS (comma list,
///   `-` for none); sends MESSAGE, reads its echo, prints `{"alpn", "version", "echo"}` as JSON.
/// - `churn PORT CAFILE COUNT`: COUNT short connections of four kinds (orderly TLS, TLS then abrupt close,
///   TCP only, TCP then reset), prints `done`.
/// - `hold PORT CAFILE COUNT`: opens COUNT TLS connections that each echo one byte, prints `ready N`,
///   keeps them idle until stdin closes, then closes them and prints `closed`.
/// - `flood PORT CAFILE SIZE`: asks for SIZE bytes, reads nothing for half a second (so the server's
///   output backs up), then reads them all and prints `{"count", "sum"}` (sum of the bytes mod 2^32).
/// - `goodbye PORT CAFILE`: sends `hi`, reads the echo, prints `ready`, then reads until the server
///   closes and prints `{"echo", "after"}` as JSON.
enum PythonTLSClient {
    static let script = #"""
        import asyncio, json, resource, socket, ssl, struct, sys

        def context(cafile, protocols=None):
            ctx = ssl.create_default_context(cafile=cafile)
            if protocols:
                ctx.set_alpn_protocols(protocols)
            return ctx

        def connect(port, ctx, host='127.0.0.1'):
            raw = socket.create_connection((host, port), timeout=20)
            return ctx.wrap_socket(raw, server_hostname='localhost')

        def recv_exact(s, n):
            data = b''
            while len(data) < n:
                chunk = s.recv(n - len(data))
                if not chunk:
                    break
                data += chunk
            return data

        def read_to_end(s):
            data = b''
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    return data
                data += chunk

        mode, port, cafile = sys.argv[1], int(sys.argv[2]), sys.argv[3]
        if mode == 'alpn':
            host, protocols, message = sys.argv[4], sys.argv[5], sys.argv[6]
            ctx = context(cafile, None if protocols == '-' else protocols.split(','))
            with connect(port, ctx, host) as s:
                s.sendall(message.encode())
                echo = recv_exact(s, len(message.encode()))
                print(json.dumps({'alpn': s.selected_alpn_protocol(), 'version': s.version(), 'echo': echo.decode()}))
        elif mode == 'churn':
            ctx = context(cafile)
            for i in range(int(sys.argv[4])):
                kind = i % 4
                if kind == 0:
                    with connect(port, ctx) as s:
                        s.sendall(b'x')
                        assert recv_exact(s, 1) == b'x'
                        s.unwrap()
                elif kind == 1:
                    s = connect(port, ctx)
                    s.sendall(b'y')
                    assert recv_exact(s, 1) == b'y'
                    s.close()
                elif kind == 2:
                    socket.create_connection(('127.0.0.1', port), timeout=20).close()
                else:
                    raw = socket.create_connection(('127.0.0.1', port), timeout=20)
                    raw.sendall(b'\x16\x03\x01\x00\x05hello')
                    raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
                    raw.close()
            print('done')
        elif mode == 'hold':
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            async def main(count):
                ctx = context(cafile)
                gate = asyncio.Semaphore(64)
                connections = []
                async def open_one():
                    async with gate:
                        reader, writer = await asyncio.open_connection('127.0.0.1', port, ssl=ctx, server_hostname='localhost')
                        writer.write(b'z')
                        await writer.drain()
                        assert await reader.readexactly(1) == b'z'
                        connections.append(writer)
                await asyncio.gather(*(open_one() for _ in range(count)))
                print('ready', len(connections), flush=True)
                await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
                for writer in connections:
                    writer.close()
                await asyncio.gather(*(w.wait_closed() for w in connections), return_exceptions=True)
                print('closed', flush=True)
            asyncio.run(main(int(sys.argv[4])))
        elif mode == 'flood':
            size = int(sys.argv[4])
            with connect(port, context(cafile)) as s:
                s.sendall(b'flood %d' % size)
                import time
                time.sleep(0.5)
                data = recv_exact(s, size)
                print(json.dumps({'count': len(data), 'sum': sum(data) % (1 << 32)}))
        elif mode == 'goodbye':
            with connect(port, context(cafile)) as s:
                s.sendall(b'hi')
                echo = recv_exact(s, 2)
                print('ready', flush=True)
                after = read_to_end(s)
                print(json.dumps({'echo': echo.decode(), 'after': after.decode()}))
        """#
}
