#!/bin/bash
# formdesk providers: lists every provider with its model, base URL and whether its key
# is set, and never prints a key.
set -u
BIN=${FORMDESK_BIN:-./build/san/formdesk}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }

cd "$tmp"
out=$(env -i PATH="$PATH" OPENAI_API_KEY=sk-e2e-secret-1 ANTHROPIC_API_KEY=sk-ant-e2e-secret-2 "$BIN" providers 2>&1)
check $? "providers exits 0"
echo "$out" | grep -q 'sk-e2e-secret-1\|sk-ant-e2e-secret-2'
[ $? != 0 ]; check $? "no key is printed"
echo "$out" | grep -Eq '^llm +openai +gpt-5.4-mini .*OPENAI_API_KEY set'
check $? "openai's key is reported set"
echo "$out" | grep -Eq '^stt +elevenlabs +scribe_v2 .*ELEVENLABS_API_KEY missing'
check $? "elevenlabs' key is reported missing"
echo "$out" | grep -Eq '^stt +google +chirp_3 .*GOOGLE_APPLICATION_CREDENTIALS missing'
check $? "google's credentials are reported missing"

echo "$out" | grep -Eq '^tts +sarvam +bulbul:v3 .*SARVAM_API_KEY missing'
check $? "the hosted voices are listed (sarvam)"
echo "$out" | grep -Eq '^tts +azure .*AZURE_SPEECH_KEY missing' && echo "$out" | grep -Eq '^tts +elevenlabs ' &&
	echo "$out" | grep -Eq '^tts +google .*GOOGLE_APPLICATION_CREDENTIALS' && echo "$out" | grep -Eq '^tts +openai +gpt-4o-mini-tts .*OPENAI_API_KEY set'
check $? "azure, elevenlabs, google and openai voices are listed with their keys"
printf '%s\n' '{"tts":{"elevenlabs":{"model":"eleven_multilingual_v2","voice":"v1"}}}' >tts.json
env -i PATH="$PATH" "$BIN" providers --config tts.json 2>&1 | grep -Eq '^tts +elevenlabs +eleven_multilingual_v2 +yes '
check $? "a \"tts\" entry of the config file sets a voice's model"
env -i PATH="$PATH" "$BIN" providers --config tts.json 2>&1 | grep -Eq '^stt +elevenlabs +scribe_v2 +- '
check $? "the \"tts\" entry leaves the STT row of the same provider alone"

echo '{"providers":{"openrouter":{"model":"vendor/m1","base_url":"http://127.0.0.1:9/v1"}}}' >formdesk.json
out=$(env -i PATH="$PATH" "$BIN" providers 2>&1)
echo "$out" | grep -Eq '^llm +openrouter +vendor/m1 +yes +http://127.0.0.1:9/v1'
check $? "./formdesk.json sets a provider's model and base URL"
env -i PATH="$PATH" OPENAI_BASE_URL=http://127.0.0.1:8/v1 "$BIN" providers 2>&1 | grep -Eq '^llm +openai .*http://127.0.0.1:8/v1'
check $? "OPENAI_BASE_URL overrides the base URL"

echo '{"providers":{"openai":{"api_key":"sk-in-file-3"}}}' >bad.json
out=$(env -i PATH="$PATH" "$BIN" providers --config bad.json 2>&1)
rc=$?
[ $rc = 2 ]; check $? "a key in the config file is refused (exit 2)"
echo "$out" | grep -q 'sk-in-file-3'
[ $? != 0 ]; check $? "the refused key is not echoed"
echo "$out" | grep -q 'environment only'
check $? "the refusal says keys come from the environment"

# A config file that is not what it must be is refused with the file and what is wrong.
bad_config() {
	printf '%s\n' "$1" >bad.json
	out=$(env -i PATH="$PATH" "$BIN" providers --config bad.json 2>&1)
	rc=$?
	[ $rc = 2 ] && echo "$out" | grep -qF "bad.json: $2"
	check $? "config $1 is refused: $2"
}
bad_config '{"providers":' 'line 2: not valid JSON'
bad_config '{"providers":{"openai":5}}' 'providers.openai must be an object'
bad_config '{"providers":{"opneai":{}}}' 'providers.opneai: no such provider'
bad_config '{"providers":{"openai":{"model":["x"]}}}' 'providers.openai.model must be a string'
bad_config '{"providers":{"openai":{"timeout_ms":1e300}}}' 'providers.openai.timeout_ms must be a whole number from 1 to 3600000'
bad_config '{"providers":{"openai":{"retries":-1}}}' 'providers.openai.retries must be a whole number from 0 to 100'
bad_config '{"providers":{"openai":{"stream":"yes"}}}' 'providers.openai.stream must be true or false'
bad_config '{"extract":{"history_turns":2.5}}' 'extract.history_turns must be a whole number from 0 to 1000000'
bad_config '{"judge":5}' 'judge must be a string'
