"""ttsserver: a Sarvam text-to-speech server on 127.0.0.1 for the e2e tests (python3's
standard library). It answers every POST /text-to-speech as Sarvam documents it
({"request_id", "audios": [base64 WAV]}): a tenth of a second of tone at the asked
speech_sample_rate, its pitch following the text; each request's "text" is appended, one a
line, to the file named by the first argument (so a test counts the requests). A second
argument, seconds, holds every answer back that long after the request is logged (a slow
voice). Prints the port it listens on."""
import base64, io, json, math, struct, sys, time, wave

import jsonserver  # beside this file, on the path python gives a script

LOG = sys.argv[1]
DELAY = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0


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


def answer(req):
    body = json.loads(req.body)
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(body["text"].replace("\n", " ") + "\n")
    time.sleep(DELAY)
    audio = tone(body["text"], int(body.get("speech_sample_rate", 22050)))
    return 200, {"request_id": "e2e", "audios": [base64.b64encode(audio).decode()]}


jsonserver.serve(answer)
