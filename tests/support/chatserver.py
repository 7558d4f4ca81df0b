"""chatserver: a chat-completions server on 127.0.0.1 for the e2e tests (python3's standard
library). serve(answer) prints the port it listens on, then answers every POST with
answer(body) -> (status, out): out a JSON object, or a string that becomes the answer's
choices[0].message.content. Bytes of out that are lone surrogates go out as they are
(invalid UTF-8, on purpose)."""
import json
from http.server import BaseHTTPRequestHandler, HTTPServer


def completion(content):
    return {"id": "c", "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 2, "completion_tokens": 2}}


def serve(answer):
    class Model(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            got = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            status, out = answer(got)
            if isinstance(out, str):
                out = completion(out)
            body = json.dumps(out, ensure_ascii=False).encode("utf-8", "surrogateescape")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = HTTPServer(("127.0.0.1", 0), Model)
    print(server.server_address[1], flush=True)
    server.serve_forever()
