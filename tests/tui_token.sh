#!/bin/bash
# tui_token: the simulator on Google's speech-to-text with a slow token endpoint, driven in
# tmux. A local server (127.0.0.1, python3's standard library) answers the OAuth token
# request (the service-account JWT grant) after 4 s and the recognize request at once.
# While the token is fetched the screen keeps drawing: the status bar names STT as waited
# for and its timer moves (the token used to be fetched blocking: the screen froze 4 s);
# then the turn arrives with the transcript, the token in its Authorization header.
# TAP-style output; deadlines are generous and only bound waits for what is checked.
set -u
cd "$(dirname "$0")/.."

. tests/lib/tmux.sh
tmux_start token python3 openssl

cat >"$tmp/server.py" <<'PY'
import sys, time
from jsonserver import serve
log = sys.argv[1]
def answer(req):
    with open(log, "a") as f:
        f.write("%s %s\n" % (req.path, req.headers.get("Authorization", "-")))
    if req.path == "/token":
        time.sleep(4)
        return 200, {"access_token": "ya29.slow-token", "expires_in": 3599, "token_type": "Bearer"}
    return 200, {"results": [{"alternatives": [{"transcript": "मेरा नाम सुनीता देवी है"}]}]}
serve(answer, threads=True)
PY
serve_local "$tmp/server.py" "$tmp/requests"

# A service-account key file naming the local token endpoint.
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/key.pem" 2>/dev/null
python3 - "$tmp/key.pem" "$port" "$tmp/cred.json" <<'PY'
import json, sys
key = open(sys.argv[1]).read()
json.dump({"type": "service_account", "project_id": "demo-project", "private_key": key,
           "client_email": "desk@demo-project.iam.gserviceaccount.com",
           "token_uri": "http://127.0.0.1:%s/token" % sys.argv[2]}, open(sys.argv[3], "w"))
PY

demo_corpus
echo "# corpus $corpus, binary $BIN, server on port $port"

WAITING='waiting for STT \(google\) [0-9]+\.[0-9] s'
db=$tmp/sim.db
waiting_shell "GOOGLE_APPLICATION_CREDENTIALS=$tmp/cred.json" \
	"GOOGLE_SPEECH_BASE_URL=http://127.0.0.1:$port"
"${T[@]}" send-keys -t sim "'$BIN' --form '$FORM' --corpus '$corpus' --db '$db' --speed 4 --stt google; echo \"exit=\$?\"" Enter

check "the status bar says STT is waited for while the token is fetched" \
	wait_for 'waiting for STT \(google\) [0-9]+\.[0-9] s' 30
timer_moves 30
moved=$?
check "the screen does not stall: the timer moves during the token fetch ($first -> ${now:-nothing})" \
	test $moved = 0
check "  ... and goes on drawing a second and more into it" \
	wait_for 'waiting for STT \(google\) [1-3]\.[0-9] s' 10
check "the turn arrives with the transcript" wait_for 'caller 1: मेरा नाम सुनीता देवी है' 30
check "the token was asked for first, then the transcript with it" \
	bash -c "head -1 '$tmp/requests' | grep -q '^/token ' && sed -n 2p '$tmp/requests' | grep -q 'recognize Bearer ya29.slow-token$'"
"${T[@]}" send-keys -t sim 'q'
check "q exits with status 0" wait_for '^exit=0' 20

echo "1..$n"

