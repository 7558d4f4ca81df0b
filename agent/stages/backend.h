/* backend: the one door to the STT, EXTRACT, REPLY and TTS backends. Each backend fills one
 * ops table (struct backend_ops: blocking call, the non-blocking halves, the EXTRACT
 * acknowledgement hook, usage, free); an instance is that table with its ctx (struct
 * backend). Backends register by name in one table per stage (backend.c): the offline
 * backends first, "reference" (STT), "rules" (EXTRACT), "script" (REPLY), "espeak" and
 * "none" (TTS), then one row per network provider of the registry (provider.h). Lookup
 * is by "PROVIDER[:MODEL]"; the names an error lists as known come from the same tables.
 * Nothing outside agent/ needs to know a provider's name or compare function pointers.
 * (The model: redis's connection.h, where a connection carries its type and both halves
 * in one table.) */
#ifndef FORMDESK_BACKEND_H
#define FORMDESK_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "agent/rules/form.h"
#include "base/ymd.h"
#include "agent/rules/extraction.h"

struct lexicon;
struct judge_llm_item;
struct http_req;
struct http_result;
struct http_xfer;
struct http_client;

/* One caller utterance for STT. */
struct stt_request {
	const float *samples;    /* mono, sample_rate Hz, n_samples of them; may be NULL */
	size_t n_samples;
	int sample_rate;         /* Hz */
	const char *reference;   /* the corpus's reference transcript, NULL if none */
	const char *language;    /* "hi" */
};

struct extract_request {
	const struct form *form;
	const struct lexicon *lex;
	int asked;                /* index of the question just asked, -1 for none */
	const char *transcript;   /* the caller's latest words */
	const cJSON *history;     /* array of {"role":"agent"|"user","content"}; may be NULL */
	struct ymd today;
};

struct reply_request {
	const struct form *form;
	const cJSON *decision;    /* the rule layer's decision (agent/rules/decision.h), as JSON */
	const cJSON *history;
	const struct decision *dec; /* the same decision as the struct when the caller has it
	                               (the engine), so it is not read back from the JSON;
	                               NULL: decision is read */
};

/* What one call to a network backend cost, for the engine to store per turn and the
 * status bar to show. Offline backends leave it untouched. */
struct backend_usage {
	char provider[32];   /* "openrouter", "elevenlabs", ... */
	char model[96];
	double ttfb_ms;      /* request start to the first response byte, milliseconds */
	double total_ms;     /* request start to its end, retries included, milliseconds */
	int attempts;        /* HTTP attempts made (1 + retries); 0 when nothing was sent */
	long http_status;    /* of the last attempt; 0 without a response */
	long tokens_in;      /* as the provider counted them; -1 unknown */
	long tokens_out;
	double audio_s;      /* seconds of audio sent (STT), 0 otherwise */
	double cost_usd;     /* from the configured prices; -1 when no price is configured */
	double ack_ms;       /* EXTRACT: request start to the acknowledgement being complete,
	                        milliseconds (streamed: when its string closed; otherwise
	                        with the whole answer); -1 without one, 0 when not measured */
	char error[256];     /* why the call failed or what was refused, "" if nothing; never
	                        holds a key */
};


/* The stages a backend can serve. JUDGE: the benchmark's language-model judge
 * (agent/stages/judge_llm.h), a network backend only. */
enum backend_stage {
	BACKEND_STT, BACKEND_EXTRACT, BACKEND_REPLY, BACKEND_TTS, BACKEND_JUDGE, BACKEND_STAGES
};

/* A judge's answer: the verdict, a static string (one of the item's kind's verdicts,
 * agent/stages/judge_llm.h), and the model's answer text (caller frees; may be NULL). */
struct judge_answer {
	const char *verdict;
	char *raw;
};

/* The audio TTS makes of a text: mono floats in [-1, 1] at the backend's own rate
 * (resample_buffer() in audio/ converts). */
struct tts_audio {
	float *samples;      /* caller frees with free(); NULL when n is 0 */
	size_t n;
	int rate;            /* Hz */
};

/* Called with each piece of a TTS backend's audio as it arrives: n samples (borrowed,
 * valid during the call) at rate Hz; at_ms: the time since the request started,
 * milliseconds (0 for audio that was already at hand). */
typedef void (*backend_piece_fn)(void *ud, const float *samples, size_t n, int rate, double at_ms);

/* Called once when a TTS request started without blocking (backend_speak_start) ends,
 * with ERR_OK when all of its audio has been handed to the piece function, else the
 * backend's error; never when the request is cancelled. */
typedef void (*backend_spoken_fn)(void *ud, enum err e);

/* One stage's operations, one static table per kind of backend. req and out are the
 * stage's own types:
 *   STT      req const struct stt_request *,     out char ** (the transcript)
 *   EXTRACT  req const struct extract_request *, out struct extraction ** (extraction_free)
 *   REPLY    req const struct reply_request *,   out char ** (the words to say)
 *   TTS      req const char * (UTF-8 text),      out struct tts_audio * (filled; empty
 *            text gives 0 samples)
 *   JUDGE    req const struct judge_llm_item *,  out struct judge_answer * (filled)
 * On success *out is new (caller frees); on failure it is untouched. */
struct backend_ops {
	enum backend_stage stage;
	bool reference_only;  /* STT: reads req->reference, never the samples (a caller need
	                         not decode the audio) */
	bool silent;          /* TTS: makes no sound (the words are shown only) */
	/* call: the whole call, blocking. Errors: ERR_BACKEND (the usage record says why),
	 * ERR_NOTFOUND (reference STT without a reference), ERR_INVALID, ERR_NOMEM. */
	enum err (*call)(void *ctx, const void *req, void *out);
	/* start: the HTTP request for req (caller owns *hr, or hands it to http_start); u is
	 * reset for the call (provider, model, tokens unknown, cost -1 when unpriced; STT:
	 * seconds of audio and their cost) and says why building failed. NULL for an
	 * offline backend, whose call completes at once. Errors: as call. */
	enum err (*start)(void *ctx, const void *req, struct http_req **hr, struct backend_usage *u);
	/* finish: the stage's output from res, the finished request start built for the same
	 * req; u (as start left it) gains timings, attempts, tokens, cost and error text
	 * (never a key). An extraction's faults go to its fault. Errors: as call. */
	enum err (*finish)(void *ctx, const void *req, const struct http_result *res, void *out,
			   struct backend_usage *u);
	/* ack: EXTRACT only, may be NULL: see backend_ack. */
	bool (*ack)(const struct http_xfer *x, char **text);
	/* sentence: REPLY only, may be NULL: see backend_sentence. */
	bool (*sentence)(const struct http_xfer *x, char **text);
	/* usage: the last blocking call's measurements, NULL before the first or offline;
	 * may be NULL. */
	const struct backend_usage *(*usage)(const void *ctx);
	/* voice: TTS, may be NULL: what besides the provider's name decides how the audio
	 * sounds (model, voice, rate) into buf (size n), for the TTS cache's key. */
	void (*voice)(const void *ctx, char *buf, size_t n);
	/* stream: TTS, may be NULL: as call, handing each piece of the audio to fn as it
	 * arrives (see backend_speak_stream). */
	enum err (*stream)(void *ctx, const char *text, backend_piece_fn fn, void *ud,
			   struct tts_audio *out);
	/* speak_start: TTS, may be NULL (then backend_speak_start synthesizes at once, as an
	 * offline voice does): begin saying text without blocking, on client c (the loop's
	 * http_poll moves it on); fn gets each piece as it arrives, done once at the end
	 * (either may come before speak_start returns, for audio already at hand). Output:
	 * *job, the request's handle for speak_cancel, valid until done is called. Errors:
	 * as call. */
	enum err (*speak_start)(void *ctx, struct http_client *c, const char *text,
				backend_piece_fn fn, backend_spoken_fn done, void *ud, void **job);
	/* speak_cancel: end job at once: no piece nor done is called for it afterwards. */
	void (*speak_cancel)(void *ctx, void *job);
	/* speak_fd: may be NULL: for a voice that works on a thread of its own, a descriptor
	 * that becomes readable when job has pieces or has ended; -1 none. */
	int (*speak_fd)(void *ctx, void *job);
	/* speak_pump: may be NULL: on the loop's thread, hand job's new pieces to fn and, at
	 * its end, call done (after which job is gone). */
	void (*speak_pump)(void *ctx, void *job);
	/* free: release ctx; may be NULL (no ctx). */
	void (*free)(void *ctx);
	/* model: the model a network backend asks (owned by ctx), NULL offline; may be NULL. */
	const char *(*model)(const void *ctx);
};

/* A backend instance: its ops with their ctx, and the provider name it was made for
 * ("reference", "openrouter", ...). */
struct backend {
	const char *name;
	const struct backend_ops *ops;
	void *ctx;
};

/* backend_stt / backend_extract / backend_reply: the backend named spec
 * ("PROVIDER[:MODEL]") from the stage's table: offline "reference", "rules", "script"
 * (the defaults); network STT elevenlabs, sarvam, deepgram, openai, groq, google,
 * whispercpp; EXTRACT and REPLY openai, openrouter, gemini, mistral, groq, anthropic,
 * local (provider.h). Output: *out filled; the instance's ctx lives until
 * backend_cleanup() (the caller frees nothing). Errors: ERR_NOTFOUND (unknown provider,
 * with the known names; key not set in the environment), ERR_PARSE / ERR_INVALID (config
 * file), ERR_NOMEM; with *why (may be NULL; a static buffer, valid until the next
 * lookup) saying which. */
enum err backend_stt(const char *spec, struct backend *out, const char **why);
enum err backend_extract(const char *spec, struct backend *out, const char **why);
enum err backend_reply(const char *spec, struct backend *out, const char **why);

/* backend_tts: the TTS backend named spec (NULL or "": TTS_DEFAULT, agent/stages/tts.h):
 * "espeak" or "espeak:VOICE" (an espeak-ng voice; default "hi", its Hindi), "none"
 * (text only), or a hosted voice "PROVIDER[:MODEL]": sarvam, elevenlabs, google, openai,
 * azure (tts_provider.h; voice and rate from the config's "tts" entry). As backend_stt
 * otherwise; ERR_BACKEND when the synthesizer would not start. */
enum err backend_tts(const char *spec, struct backend *out, const char **why);

/* backend_judge: the benchmark's judge named spec ("PROVIDER[:MODEL]", a language-model
 * provider: openai, openrouter, ...; there is no offline judge). As backend_stt
 * otherwise. */
enum err backend_judge(const char *spec, struct backend *out, const char **why);

/* backend_known: the names the stage's table knows, offline first, ", " between them,
 * into buf (size n, truncated to fit). Output: buf. */
const char *backend_known(enum backend_stage stage, char *buf, size_t n);

/* backend_default: the stage's default backend, its first offline one: "reference",
 * "rules", "script", "espeak" (static); NULL for JUDGE, which has none. */
const char *backend_default(enum backend_stage stage);

/* backend_stage_name: "STT", "EXTRACT", "REPLY", "TTS", "JUDGE" (static). */
const char *backend_stage_name(enum backend_stage stage);

/* backend_tts_voice: what decides how b's audio sounds: "NAME|MODEL|VOICE|RATE" for a
 * hosted voice, "NAME" for an offline one, into buf (size n). Output: buf. */
const char *backend_tts_voice(const struct backend *b, char *buf, size_t n);

/* backend_call: b's blocking call on req of b's stage (see struct backend_ops).
 * Output: *out (caller frees). Errors: ERR_UNSUPPORTED (b has no ops), else the call's. */
enum err backend_call(const struct backend *b, const void *req, void *out);

/* Typed forms of backend_call for one stage; ERR_INVALID when b serves another. */
enum err backend_transcribe(const struct backend *b, const struct stt_request *req, char **text);
enum err backend_extract_fields(const struct backend *b, const struct extract_request *req,
				struct extraction **out);
enum err backend_say(const struct backend *b, const struct reply_request *req, char **text);
enum err backend_speak(const struct backend *b, const char *text, struct tts_audio *out);
enum err backend_ask_judge(const struct backend *b, const struct judge_llm_item *item,
			   struct judge_answer *out);

/* backend_model: the model b's network backend asks ("gpt-5.4-mini"; owned by b's ctx),
 * NULL for an offline backend. */
const char *backend_model(const struct backend *b);

/* backend_speak_stream: as backend_speak, and fn(ud, ...) gets the audio piece by piece
 * as it arrives where the backend streams (a hosted voice that answers in chunks; the TTS
 * cache, sentence by sentence), else once, whole, when it is made. Blocking: it returns
 * when the audio is complete. Output: *out, the whole audio (caller frees). Errors: as
 * backend_speak. */
enum err backend_speak_stream(const struct backend *b, const char *text, backend_piece_fn fn,
			      void *ud, struct tts_audio *out);

/* One TTS request in flight (backend_speak_start). */
struct backend_speech;

/* backend_speak_start: begin saying text on TTS backend b without blocking the loop: a
 * hosted voice's request runs on client c (borrowed; the loop waits on it with
 * http_client_waitfds and moves it with http_poll), the TTS cache answers what it keeps at
 * once and asks the voice behind it the same way; espeak-ng synthesizes on a thread of its
 * own (backend_speech_fd, backend_speech_pump); an offline voice without one ("none")
 * answers at once. fn(ud, ...) gets each piece of the audio as it arrives (a hosted
 * voice that streams: as its chunks come; otherwise whole), done(ud, err) once at the
 * end; both may be called before this returns. Output: *out, the handle for
 * backend_speak_cancel (owned by the request: valid until done is called; NULL when done
 * was called already). Errors: ERR_INVALID (b serves another stage), ERR_NOMEM, else the
 * backend's for a request that could not be built (then neither fn nor done is called). */
enum err backend_speak_start(const struct backend *b, struct http_client *c, const char *text,
			     backend_piece_fn fn, backend_spoken_fn done, void *ud,
			     struct backend_speech **out);

/* backend_speech_fd: a descriptor the loop waits on (readable) besides the HTTP client's
 * for s to move on (a voice synthesizing on its own thread: espeak-ng), -1 when none. */
int backend_speech_fd(const struct backend_speech *s);

/* backend_speech_pump: on the loop, after its wait: s's new pieces to fn, and at its end
 * done (s is then freed: do not use it again). For a voice without its own thread it
 * does nothing (its HTTP client's http_poll moves it). */
void backend_speech_pump(struct backend_speech *s);

/* backend_speak_cancel: end the request s at once (its transfer is closed): neither piece
 * nor done is called for it afterwards; s is freed. NULL does nothing. */
void backend_speak_cancel(struct backend_speech *s);

/* backend_streams: whether b hands its audio over in pieces (it has the stream op). */
bool backend_streams(const struct backend *b);

/* backend_start / backend_finish: the two halves of one call to a network backend, for a
 * loop that runs requests itself without blocking (http_start / http_poll,
 * agent/stages/http.h); see struct backend_ops start and finish. req must be the same for both.
 * Errors: ERR_UNSUPPORTED (b is offline: nothing done; call backend_call, which
 * completes at once), else as the ops'. */
enum err backend_start(const struct backend *b, const void *req, struct http_req **hr,
		       struct backend_usage *u);
enum err backend_finish(const struct backend *b, const void *req, const struct http_result *res,
			void *out, struct backend_usage *u);

/* backend_ack: the hook for speaking EXTRACT's acknowledgement early (the FormBharo
 * paper: spoken at once, before the fields are known). x is the handle http_start gave
 * for the request backend_start built on b. Returns true once, the first time the
 * streamed answer's "ack" is complete and not empty, with *text a new string (caller
 * frees); false before, after, for a backend without the hook or a provider that does
 * not stream. Poll it after each http_poll while the request is in flight; if the
 * request ends before it was taken, the same text is the extraction's ack. */
bool backend_ack(const struct backend *b, const struct http_xfer *x, char **text);

/* backend_sentence: the hook for speaking REPLY's line sentence by sentence while it
 * streams. x is the handle http_start gave for the request backend_start built on b.
 * Returns true with *text (caller frees) the next complete sentence not handed out
 * before; false while none is, for a backend without the hook or a provider that does not
 * stream. Poll it after each http_poll while the request is in flight; what was not
 * handed out when the request ends is the rest of the whole line backend_finish gives. */
bool backend_sentence(const struct backend *b, const struct http_xfer *x, char **text);

/* backend_last_usage: the measurements of the last blocking call made through b.
 * Output: *out. Returns false for an offline backend or one that has made no call (then
 * *out is untouched). */
bool backend_last_usage(const struct backend *b, struct backend_usage *out);

/* backend_is_network: whether b's calls go over HTTP and take their time (it has the
 * non-blocking halves). */
bool backend_is_network(const struct backend *b);

/* backend_cleanup: free every instance's ctx made by the lookups above and the shared
 * HTTP client (at exit). Instances filled before are no longer usable. */
void backend_cleanup(void);

#endif
