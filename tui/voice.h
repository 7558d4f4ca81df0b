/* voice: the agent's words of a played corpus call spoken in the chosen voice (--tts), so
 * programme staff hear the script as a caller would: each reply as the playback shows it
 * (playback_on_agent), through the TTS cache for a hosted voice, on the output device or
 * into a WAV file (--output-device, --output-file). A reply stops the one before it. */
#ifndef FORMDESK_VOICE_H
#define FORMDESK_VOICE_H

#include "base/err.h"
#include "sessions/calls/livecall.h"

struct voice;

/* voice_open: the voice lo->tts names, with a cache beside db_path for a hosted one, and
 * the output lo names (a device, lo->output_file, else the default device). Output: *out
 * (caller frees with voice_free); on failure *errmsg (caller frees; may be NULL). Errors:
 * backend_tts's (an unknown voice, a key not set), ERR_NOTFOUND (no output device),
 * ERR_AUDIO, ERR_IO, ERR_NOMEM. */
enum err voice_open(const struct livecall_options *lo, const char *db_path, struct voice **out,
		    char **errmsg);
void voice_free(struct voice *v);

/* voice_say: say text (ud is the struct voice), stopping what was still playing. A voice
 * that fails says nothing (the words are on the screen anyway); voice_failures counts it. */
void voice_say(void *ud, const char *text);

/* voice_failures: replies that could not be spoken so far. */
int voice_failures(const struct voice *v);

#endif
