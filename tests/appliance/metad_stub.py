"""A stand-in for gantry-metad's instance-facing install tree (contracts §2),
for the agent's tests: serves the environment, the script and the package,
and records the progress reports, over a unix socket.

Sequential on purpose: one connection at a time, and on each connection
request after request until EOF, whatever "Connection: close" says, always
with Content-Length. That is what a slirp guestfwd to a chardev needs (all
of a guest's connections arrive as one byte stream) and is fine for curl.
"""
import http.server
import os
import socket
import socketserver
import threading
import urllib.parse


def shell_quote(value):
    return "'" + value.replace("'", "'\\''") + "'"


def render_environment(env):
    """metad's rendering: one `export NAME='value'` a line."""
    return "".join("export %s=%s\n" % (k, shell_quote(v)) for k, v in env.items())


class Stub:
    def __init__(self, path, environment=None, script=None, package=None):
        self.path = path
        self.environment = environment  # dict or None (404)
        self.script = script            # str or None (404)
        self.package = package          # bytes or None (404)
        self.progress = []              # dicts: step, state, detail, output
        self.requests = []              # "METHOD PATH"
        self.lock = threading.Lock()
        self.done = threading.Condition(self.lock)
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle(self):
                # one stream of back-to-back requests, until EOF
                try:
                    while True:
                        self.handle_one_request()
                        if not self.raw_requestline or self.wfile.closed:
                            break
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client went away: the next connection may come

            def answer(self, status, body=b"", ctype="text/plain"):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if body:
                    self.wfile.write(body)
                self.wfile.flush()

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                with stub.lock:
                    stub.requests.append("GET " + url.path)
                if url.path == "/gantry/latest/install/environment" and stub.environment is not None:
                    self.answer(200, render_environment(stub.environment).encode())
                elif url.path == "/gantry/latest/install/script" and stub.script is not None:
                    self.answer(200, stub.script.encode(), "application/octet-stream")
                elif url.path == "/ganeti/latest/os/package" and stub.package is not None:
                    self.answer(200, stub.package, "application/gzip")
                else:
                    self.answer(404, b"Resource not found\n")

            def do_POST(self):
                url = urllib.parse.urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with stub.lock:
                    stub.requests.append("POST " + url.path)
                if url.path != "/gantry/latest/install/progress":
                    self.answer(404, b"Resource not found\n")
                    return
                q = urllib.parse.parse_qs(url.query, keep_blank_values=True)
                entry = {k: q.get(k, [""])[0] for k in ("step", "state", "detail")}
                entry["output"] = body.decode(errors="replace")
                with stub.lock:
                    stub.progress.append(entry)
                    stub.done.notify_all()
                self.answer(200)  # as metad: 204 has no Content-Length

        class Server(socketserver.UnixStreamServer):
            allow_reuse_address = True

        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        self.server = Server(path, Handler)
        os.chmod(path, 0o666)  # qemu may run as another user
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def wait_for(self, predicate, timeout):
        """Waits until predicate(progress) is true; returns it."""
        with self.lock:
            return self.done.wait_for(lambda: predicate(self.progress), timeout)

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    def steps(self):
        with self.lock:
            return [(e["step"], e["state"]) for e in self.progress]
