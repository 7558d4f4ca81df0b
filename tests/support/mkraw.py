"""mkraw.py OUT SECONDS [CLIP.wav AT_MS]...: float32 little-endian mono 16 kHz silence with
each clip (16-bit mono WAV, resampled by linear interpolation) placed at AT_MS.
Used by the end-to-end tests that feed a microphone call through ALSA's file plugin."""
import array, sys, wave
out, secs = sys.argv[1], float(sys.argv[2])
rate = 16000
buf = array.array('f', bytes(4 * int(secs * rate)))
args = sys.argv[3:]
for i in range(0, len(args), 2):
    w = wave.open(args[i])
    src = array.array('h', w.readframes(w.getnframes()))
    r = w.getframerate()
    at = int(float(args[i + 1]) * rate / 1000)
    for k in range(int(len(src) * rate / r)):
        x = k * r / rate
        j = int(x)
        a = src[j] if j < len(src) else 0
        b = src[j + 1] if j + 1 < len(src) else 0
        if at + k < len(buf):
            buf[at + k] = (a + (b - a) * (x - j)) / 32768.0
with open(out, 'wb') as f:
    buf.tofile(f)
