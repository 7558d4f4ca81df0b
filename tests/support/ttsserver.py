"""ttsserver: a Sarvam text-to-speech server on 127.0.0.1 for the e2e tests (python3's
standard library). It answers every POST /text-to-speech as Sarvam documents it
({"request_id", "audios": [base64 WAV]}): a tenth of a second of tone at the asked
speech_sample_rate, its pitch following the text; each request's "text" is appended, one a
line, to the file named by the first argument (so a test counts the requests). Prints the
port it listens on."""
import base64, io, json, math, struct, sys, wave
from http.server import BaseHTTPRequestHandler, HTTPServer

LOG = sys.argv[1]


def tone(text, rate):
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        hz = 200 + len(text) % 300
        w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * hz * i / rate)))
                               for i in range(rate // 10)))
    return out.getvalue()


class Sarvam(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(req["text"].replace("\n", " ") + "\n")
        audio = tone(req["text"], int(req.get("speech_sample_rate", 22050)))
        body = json.dumps({"request_id": "e2e", "audios": [base64.b64encode(audio).decode()]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = HTTPServer(("127.0.0.1", 0), Sarvam)
print(server.server_address[1], flush=True)
server.serve_forever()
