/* ttscache: the agent's synthesized speech kept beside the database (DB.tts/), so a
 * form's fixed scripts are synthesized once and play at once afterwards with no request
 * and no cost. Audio is kept per sentence (a reply that joins the intro to the first
 * question, or a skip message to the next one, reuses the sentences said before), keyed
 * by the SHA-256 of the TTS backend's provider, model, voice and rate and the sentence's
 * words; each is a 16-bit WAV file at the engine's 16 kHz named by that hash. A file is
 * written whole under a temporary name, flushed, then renamed into place (rename(2) is
 * atomic), so a crash leaves either the whole file or none.
 *
 * The cache is itself a TTS backend (backend.h) in front of another: wrap a hosted
 * voice with ttscache_wrap and use the backend it gives as before. Started without
 * blocking (backend_speak_start), it hands kept sentences over at once and asks the voice
 * for the others on the caller's HTTP client, one after another, keeping each when it is
 * complete: its file is written on a thread of its own, so the loop never waits for the
 * disk; until the file is in place its audio answers hits; ttscache_free waits for the
 * writes; one that fails is only a miss next time. Offline voices
 * (espeak, none) are not cached: they cost nothing and answer at once. */
#ifndef FORMDESK_TTSCACHE_H
#define FORMDESK_TTSCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include "agent/stages/backend.h"
#include "agent/rules/form.h"

#define TTSCACHE_RATE 16000 /* Hz: the rate kept and handed out (the engine's) */

struct ttscache;

/* ttscache_dir: the cache folder of database db_path: "DB.tts" into buf (size n).
 * Output: buf. */
const char *ttscache_dir(const char *db_path, char *buf, size_t n);

/* ttscache_new: a cache in folder dir (made when missing) in front of inner (copied; its
 * ctx stays owned by the backend table). Output: *out (caller frees with ttscache_free).
 * Errors: ERR_IO (dir cannot be made), ERR_NOMEM. */
enum err ttscache_new(const char *dir, const struct backend *inner, struct ttscache **out);
void ttscache_free(struct ttscache *c);

/* ttscache_wrap: when b is a hosted voice and db_path is not NULL, a cache in
 * ttscache_dir(db_path) in front of it: *b becomes the cache's backend and *out the cache
 * (caller frees with ttscache_free after the last use of *b); otherwise nothing changes
 * and *out is NULL. Errors: as ttscache_new. */
enum err ttscache_wrap(const char *db_path, struct backend *b, struct ttscache **out);

/* ttscache_voice: the TTS backend spec names (backend_tts: NULL the default espeak), with
 * a cache in ttscache_dir(db_path) in front when it is a hosted voice and db_path is not
 * NULL. Output: *b; *cache the cache or NULL (caller frees with ttscache_free after the
 * last use of *b). On failure *why (may be NULL) says what (static). Errors: backend_tts's,
 * ERR_IO (the cache folder). */
enum err ttscache_voice(const char *spec, const char *db_path, struct backend *b,
			struct ttscache **cache, const char **why);

/* ttscache_backend: the TTS backend whose calls go through c (ctx c, borrowed): its
 * audio is at TTSCACHE_RATE. */
struct backend ttscache_backend(struct ttscache *c);

/* ttscache_speak: the audio of text at TTSCACHE_RATE, each sentence from the cache or
 * else synthesized by the inner backend and kept. Output: *out (caller frees
 * out->samples). Errors: the inner backend's, ERR_IO (a cache file would not write or
 * read), ERR_AUDIO, ERR_NOMEM. */
enum err ttscache_speak(struct ttscache *c, const char *text, struct tts_audio *out);

/* ttscache_speak_stream: as ttscache_speak, handing the audio to fn (ud passed along; at
 * TTSCACHE_RATE) as it comes: a kept sentence at once, whole; a new one piece by piece as
 * the voice streams it. So the first sentence plays while the next are synthesized. */
enum err ttscache_speak_stream(struct ttscache *c, const char *text, backend_piece_fn fn, void *ud,
			       struct tts_audio *out);

/* ttscache_warm: synthesize and keep every fixed script of form f (intro, outros, each
 * question's script or label, skip message and retry messages; sentences that hold a
 * "{error}" placeholder are left out: they change with the error). Output: *made
 * sentences synthesized now, *had already kept (either may be NULL). On failure why
 * (size n) names the sentence. Errors: as ttscache_speak. */
enum err ttscache_warm(struct ttscache *c, const struct form *f, int *made, int *had, char *why,
		       size_t n);

/* ttscache_counts: sentences found in the cache and sentences synthesized by c so far. */
void ttscache_counts(const struct ttscache *c, long *hits, long *misses);

/* ttscache_sentences: text cut into sentences after "।", "॥", "?", "!" or "." followed
 * by a space or the end, each trimmed of spaces; calls fn(ud, s, len) for each non-empty
 * one (not NUL-terminated). Returns the first error fn returns, else ERR_OK. */
enum err ttscache_sentences(const char *text, enum err (*fn)(void *ud, const char *s, size_t len),
			    void *ud);

#endif
