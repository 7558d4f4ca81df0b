/* recorder: keeps the audio of a call: what the caller said (the microphone, or the
 * recorded turns played) and what the agent said, as two mono files in one folder per
 * call next to the database (recorder_dir()), written by the main loop (or by a writer
 * thread of its own: recorder_background), never by the audio callback.
 *
 * Crash safety: the files are 16-bit WAV written through libsndfile; after every write
 * the WAV header's sizes are brought up to date (SFC_SET_UPDATE_HEADER_AUTO, libsndfile's
 * documentation), and at the end of every turn the file is also flushed to disk (fsync).
 * A kill of the process therefore leaves valid WAV files holding everything written, up to
 * the one write it interrupted (a power loss: every finished turn). At a clean close the
 * files may be re-encoded as FLAC.
 *
 * With recorder_background the same happens on a writer thread: the loop hands samples
 * over and goes on; a turn is durable once the thread has committed it (a crash within
 * those milliseconds loses that turn's end, never the file's validity).
 *
 * The two files share one timeline when the caller of the recorder keeps them aligned
 * (recorder_align pads the agent's file with silence up to the caller's), so the offsets
 * of a turn in both files refer to the same moments of the call. */
#ifndef FORMDESK_RECORDER_H
#define FORMDESK_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"

enum recorder_side { RECORDER_CALLER, RECORDER_AGENT };

/* Where one finished turn lies in the files, in ms from their start. */
struct recorder_turn {
	int index;              /* 1 for the first turn recorded */
	long caller_start_ms, caller_end_ms;
	long agent_start_ms, agent_end_ms;
};

struct recorder;

/* recorder_dir: the folder for call id of the database at db_path:
 * "<db_path without .db>.audio/call-<id>" (e.g. formdesk.db -> formdesk.audio/call-7).
 * Output: written to buf (size bytes). Returns 0, or -1 if it does not fit. */
int recorder_dir(const char *db_path, long long call_id, char *buf, size_t size);

/* recorder_open: create dir (and its parents) and the files caller.wav and agent.wav in
 * it, mono at rate Hz (8000..48000). Output: *out (caller frees with recorder_close); on
 * failure *errmsg (caller frees; may be NULL) names the path and the reason.
 * Errors: ERR_IO, ERR_INVALID (rate), ERR_NOMEM. */
enum err recorder_open(const char *dir, int rate, struct recorder **out, char **errmsg);

/* recorder_write: append n samples (borrowed; mono at the recorder's rate) to side's file.
 * Errors: ERR_IO. */
enum err recorder_write(struct recorder *r, enum recorder_side side, const float *samples, size_t n);

/* recorder_align: pad the agent's file with silence up to the caller's length (call
 * before the agent speaks, so its words sit where they were heard). Errors: ERR_IO. */
enum err recorder_align(struct recorder *r);

/* recorder_turn_end: the turn is finished: make everything written so far survive a
 * crash (header rewritten, flushed, fsync). Output: *t (may be NULL): where the turn lies
 * in each file (from the previous turn's end to now). Errors: ERR_IO. */
enum err recorder_turn_end(struct recorder *r, struct recorder_turn *t);

/* recorder_background: from now on r's file work (writes, header rewrites, fsync) is
 * done by a thread of its own, in order, so the caller's loop never waits for the disk:
 * recorder_write copies the samples and returns; recorder_turn_end returns the turn's
 * offsets at once and the turn is durable shortly after (recorder_sync waits for it). A
 * failure on the thread is returned by the next call (ERR_IO) and by recorder_close.
 * before_commit (may be NULL) is called on the thread before each turn's commit (a test
 * makes the disk slow with it). Errors: ERR_NOMEM (no thread: r stays synchronous). */
enum err recorder_background(struct recorder *r, void (*before_commit)(void));

/* recorder_sync: wait until everything handed to r is written and every finished turn is
 * durable. Errors: ERR_IO (a write or commit failed). */
enum err recorder_sync(struct recorder *r);

/* recorder_path: the file of side (DIR/caller.wav or DIR/agent.wav); static to r. After
 * a FLAC close the files are DIR/caller.flac and DIR/agent.flac. */
const char *recorder_path(const struct recorder *r, enum recorder_side side);

/* recorder_close: finish the files (what was written after the last turn end is kept
 * too) and free r; with flac, re-encode each as FLAC (libsndfile) and remove the WAV.
 * recorder_close(NULL, ...) does nothing. On failure *errmsg as above; r is freed
 * regardless. Errors: ERR_IO. */
enum err recorder_close(struct recorder *r, bool flac, char **errmsg);

#endif
