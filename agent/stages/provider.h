/* provider: the registry of hosted model providers formdesk can call, and their settings.
 *
 * Each provider has a name, a kind (language model or speech-to-text), a protocol, a
 * default model, a base URL and the environment variable that overrides it (as the
 * provider's own SDK allows, e.g. OPENAI_BASE_URL, ANTHROPIC_BASE_URL), and the
 * environment variable holding its key. Keys come from the environment only: never from
 * the config file, never written anywhere.
 *
 * A config file (JSON) can set, per provider, the base URL, model, timeout, retries and
 * prices. It is the file given to provider_config_load(), else $FORMDESK_CONFIG, else
 * ./formdesk.json when it exists:
 * {
 *   "providers": {
 *     "openrouter": {"base_url": "...", "model": "...", "timeout_ms": 20000, "retries": 2,
 *                    "usd_per_million_input_tokens": 0.3,
 *                    "usd_per_million_output_tokens": 2.5,
 *                    "reasoning": true|false, "structured": "json_schema"|"tool",
 *                    "stream": true|false},
 *     "elevenlabs": {"usd_per_audio_minute": 0.0067},
 *     "google": {"project": "...", "location": "us"}
 *   },
 *   "tts": {
 *     "elevenlabs": {"model": "...", "voice": "...", "sample_rate": 16000,
 *                    "usd_per_million_characters": 50, "timeout_ms": 10000}
 *   },
 *   "extract": {"reasoning_effort": "medium", "history_turns": 200},
 *   "reply": {"reasoning_effort": "low", "history_turns": 200},
 *   "judge": "openai:gpt-5.4-mini",
 *   "deadlines": {"turn_ms": 90000, "call_ms": 900000}
 * }
 * "stream" (default true for the chat-completions and Messages protocols) has EXTRACT and
 * REPLY ask for a streamed answer, so EXTRACT's acknowledgement is known, and REPLY's first
 * sentence spoken, before the rest arrives.
 * "judge" names the benchmark's LLM judge ("PROVIDER[:MODEL]"; also {"spec": "..."}),
 * used when `formdesk bench` is given no --judge.
 * "deadlines" bound the time an unresponsive provider can take (provider_config_deadlines).
 * "tts" holds the text-to-speech providers' settings (tts_provider.h), apart from
 * "providers" because several names (openai, google, ...) serve both and their models differ.
 * Precedence: config file, then environment, then the built-in default. */
#ifndef FORMDESK_PROVIDER_H
#define FORMDESK_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"

enum provider_kind { PROVIDER_LLM, PROVIDER_STT, PROVIDER_TTS };

enum provider_protocol {
	PROTO_OPENAI_CHAT,   /* POST {base}/chat/completions */
	PROTO_ANTHROPIC,     /* POST {base}/v1/messages */
	PROTO_STT,           /* speech-to-text: the row's stt_request and stt_parse say how */
	PROTO_TTS,           /* text-to-speech: the row's tts_request and tts_answer say how */
};

/* How a TTS provider hands the audio back (agent/stages/tts_cloud.c decodes each). */
enum provider_audio {
	AUDIO_PCM16,         /* the body is raw 16-bit little-endian mono PCM at the asked rate */
	AUDIO_WAV,           /* the body is a WAV file */
	AUDIO_JSON_WAV,      /* a JSON body holding a WAV file in base64 (the row's audio_key) */
};

/* How a provider writes a language in its requests. */
enum provider_lang {
	LANG_ISO639_1,       /* "hi" */
	LANG_ISO639_3,       /* "hin" (ElevenLabs) */
	LANG_BCP47,          /* "hi-IN" (Sarvam, Google) */
};

struct stt_call;
struct tts_call;
struct http_req;

/* A built-in provider (static data). */
struct provider_info {
	const char *name;
	enum provider_kind kind;
	enum provider_protocol protocol;
	const char *model;      /* default model */
	const char *base_url;   /* default base URL, no trailing slash */
	const char *base_env;   /* environment variable overriding base_url */
	const char *key_env;    /* environment variable with the key; NULL: none needed */
	enum provider_lang lang;
	/* STT and TTS rows (provider_stt.h, tts_provider.h): */
	bool oauth;             /* the key is a Google service-account file (OAuth token) */
	/* STT rows only: */
	/* stt_request: the HTTP request for c (caller owns *out). Errors: ERR_NOMEM,
	 * ERR_INVALID. */
	enum err (*stt_request)(const struct stt_call *c, struct http_req **out);
	/* stt_parse: the transcript in a successful answer body (len bytes). Output: *text
	 * (caller frees). Errors: ERR_PARSE (no transcript), ERR_NOMEM. */
	enum err (*stt_parse)(const char *body, size_t len, char **text);
	/* TTS rows only (agent/stages/tts_provider.h): */
	const char *voice;      /* default voice */
	int rate;               /* default sample rate asked for, Hz */
	bool fixed_rate;        /* the provider answers at rate whatever is asked (OpenAI pcm) */
	bool streams;           /* the answer arrives in pieces as it is made (chunked) */
	enum provider_audio audio;
	const char *audio_key;  /* AUDIO_JSON_WAV: "audioContent", or "audios.#0" */
	/* tts_request: the HTTP request for c (caller owns *out). Errors: ERR_NOMEM. */
	enum err (*tts_request)(const struct tts_call *c, struct http_req **out);
};

/* A provider resolved for use: defaults, environment and config merged. */
struct provider {
	const struct provider_info *info;
	char *model;
	char *base_url;          /* no trailing slash */
	char *key;               /* secret: never print; NULL when none is needed */
	long timeout_ms;
	int retries;
	double usd_in_mtok, usd_out_mtok, usd_audio_min; /* 0 when not configured */
	int reasoning;           /* 1 reasoning model, 0 not, -1 guess from the model name */
	bool use_tool;           /* structured output by a forced tool call, not json_schema */
	bool stream;             /* EXTRACT and REPLY ask for streamed answers (server-sent events) */
	char *project, *location; /* Google: project id and location */
	char *extract_effort, *reply_effort; /* reasoning effort per stage */
	int extract_history, reply_history;  /* history turns sent (the paper: 200) */
	char *voice;             /* TTS: the voice (config "voice", else the row's) */
	int rate;                /* TTS: Hz asked for (config "sample_rate", else the row's) */
	double usd_mchar;        /* TTS: price per million characters, 0 when not configured */
};

/* provider_table: the built-in providers of kind, *n of them (static): the language
 * models here, the speech-to-text services in provider_stt.h, the text-to-speech ones in
 * tts_provider.h. */
const struct provider_info *provider_table(enum provider_kind kind, int *n);

/* provider_find: the built-in provider named name of kind, NULL if none. */
const struct provider_info *provider_find(const char *name, enum provider_kind kind);

/* provider_config_load: read the config file path (NULL: $FORMDESK_CONFIG, else
 * ./formdesk.json if it exists, else no file) and keep it for provider_resolve. Output:
 * on failure, why (if not NULL, size n) says what is wrong. Errors: ERR_IO, ERR_PARSE,
 * ERR_INVALID (a key in the file, a wrong type), ERR_NOMEM. */
enum err provider_config_load(const char *path, char *why, size_t n);

/* provider_config_free: forget the loaded config. */
void provider_config_free(void);

/* provider_resolve: the provider of kind named by spec "PROVIDER[:MODEL]". Output: *out
 * (caller frees with provider_free). why (size n) says what is missing on failure, never
 * the key itself. Errors: ERR_NOTFOUND (unknown provider, key not set), ERR_PARSE /
 * ERR_INVALID (config file), ERR_NOMEM. */
enum err provider_resolve(const char *spec, enum provider_kind kind, struct provider **out,
			  char *why, size_t n);

/* provider_settings: the model and base URL info would use (config file, environment,
 * default), whether or not its key is set; written to model and base (sizes nm, nb). */
void provider_settings(const struct provider_info *info, char *model, size_t nm, char *base, size_t nb);

/* provider_free: wipe the key and free p; NULL does nothing. */
void provider_free(struct provider *p);

/* provider_auth: add the header "name: PREFIXkey" to r (the key copied, the buffer it was
 * put together in wiped). Errors: ERR_NOMEM. */
enum err provider_auth(struct http_req *r, const char *name, const char *prefix, const char *key);

/* provider_is_reasoning: whether p's model reasons before answering (then temperature is
 * not sent and the reasoning effort is): the config's "reasoning", else a guess from the
 * model name (OpenAI gpt-5 and o-series, Gemini 2.5 and 3, DeepSeek R1, Qwen3, Magistral). */
bool provider_is_reasoning(const struct provider *p);

/* provider_language: lang ("hi", two-letter ISO 639-1) as p's STT or TTS expects it (its
 * row's lang): ISO 639-3 for ElevenLabs' STT ("hin"), BCP-47 with region for Sarvam,
 * Google and Azure ("hi-IN"), else as given. Output: a static string or lang itself. */
const char *provider_language(const struct provider *p, const char *lang);

/* provider_configured: whether the config file names provider name. */
bool provider_configured(const char *name);

/* provider_info_configured: whether the config file has an entry for info (its "tts"
 * entry for a text-to-speech row, else its "providers" one). */
bool provider_info_configured(const struct provider_info *info);

/* provider_config_judge: the config file's "judge" spec ("PROVIDER[:MODEL]"), NULL when
 * it names none (owned by the loaded config: valid until it is freed or reloaded). */
const char *provider_config_judge(void);

/* The deadlines when the config file gives none: a turn's stages together, and the
 * agent's turns of one call together (opening included), milliseconds. Each request has
 * its own timeout besides (timeout_ms, 30 s by default). */
#define PROVIDER_TURN_DEADLINE_MS 90000L
#define PROVIDER_CALL_DEADLINE_MS 900000L

/* provider_config_deadlines: the config file's "deadlines" ({"turn_ms", "call_ms"},
 * whole milliseconds from 0 to 86400000, 0 for none), each one missing being its
 * PROVIDER_*_DEADLINE_MS. Outputs: *turn_ms, *call_ms (0: none). The engine ends a turn's
 * requests when the first passes and the call when the second does (sessions/calls/engine.h). */
void provider_config_deadlines(long *turn_ms, long *call_ms);

/* provider_config_path: the config file in use, NULL when none (static). */
const char *provider_config_path(void);

#endif
