"""jsonserver: what the e2e tests' local JSON servers share (127.0.0.1, python3's standard
library). serve(answer, threads=False) prints the port it listens on, then answers every
POST with answer(req) -> (status, out): req is the request's handler (req.path,
req.headers) with req.body the bytes it sent; out goes back as JSON, UTF-8, lone
surrogates as they are (invalid UTF-8, for the tests that send it on purpose). threads:
each request on its own thread, so a slow answer holds up no other. A client that hangs up
before its answer is not an error."""
import json
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer


def serve(answer, threads=False):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            self.body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            status, out = answer(self)
            body = json.dumps(out, ensure_ascii=False).encode("utf-8", "surrogateescape")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass

    server = (ThreadingHTTPServer if threads else HTTPServer)(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()
