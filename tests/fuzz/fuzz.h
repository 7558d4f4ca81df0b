/* fuzz: the entry points that read outside data, one function per target, each taking
 * any bytes. They are called by libFuzzer (tests/fuzz/libfuzzer.c, `make fuzz`) and by
 * tests/test_fuzz.c, which feeds them every saved input under tests/fuzz/regress/TARGET/
 * in `make check` (built without libFuzzer, so under gcc too). A target returns 0; a
 * fault shows as a sanitizer report or a crash, never as a return value. */
#ifndef FORMDESK_FUZZ_H
#define FORMDESK_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* form: the bytes as a form config (form_parse). */
int fuzz_form(const uint8_t *data, size_t len);
/* corpus: the bytes split at lines "==> NAME <==" into the files of a corpus folder
 * (corpus.json, calls.csv, transcripts.csv, expected.jsonl; audios/ holds u_name.wav),
 * loaded with corpus_load. Text before the first marker is transcripts.csv. */
int fuzz_corpus(const uint8_t *data, size_t len);
/* chat / anthropic: the bytes as a chat-completions (OpenAI protocol) or Anthropic
 * Messages answer, whole or streamed (server-sent events), read at once with llm_parse
 * and in pieces with llm_stream_feed (cut where the first byte says). */
int fuzz_chat(const uint8_t *data, size_t len);
int fuzz_anthropic(const uint8_t *data, size_t len);
/* stt: the first byte picks a speech-to-text provider (elevenlabs, sarvam, deepgram,
 * openai, groq, google, whispercpp); the rest is its answer (stt_cloud_parse). */
int fuzz_stt(const uint8_t *data, size_t len);
/* extract: the bytes as a caller's words, through the offline extractor and the rule
 * layer's check with every question of the enrollment form asked in turn. */
int fuzz_extract(const uint8_t *data, size_t len);
/* audio: the bytes as an audio file (WAV, FLAC, MP3, ...) read by audiofile_read. */
int fuzz_audio(const uint8_t *data, size_t len);
/* callimport: the first byte's low bit picks the format (0 plain JSONL, 1 FormBharo's
 * JSON); the rest is the file callimport_load reads (a turn's recording "a.wav" exists
 * beside it). */
int fuzz_callimport(const uint8_t *data, size_t len);

struct fuzz_target {
	const char *name;
	int (*fn)(const uint8_t *data, size_t len);
};

/* fuzz_targets: every target, *n of them (static). */
const struct fuzz_target *fuzz_targets(int *n);

/* fuzz_text: data as a new NUL-terminated string (a NUL inside stays: the text ends there
 * for C string readers). NULL when memory runs out. Caller frees. */
char *fuzz_text(const uint8_t *data, size_t len);
/* fuzz_scratch: a private folder for files a target writes (made once per process, removed
 * at exit). */
const char *fuzz_scratch(void);
/* fuzz_write: write len bytes to dir/name (made, truncated). Returns 0, -1 on failure. */
int fuzz_write(const char *dir, const char *name, const void *data, size_t len);

#endif
