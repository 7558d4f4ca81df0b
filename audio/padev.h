/* padev: PortAudio set-up shared by capture and sink: starting and stopping the library
 * (with the start-up chatter of ALSA, JACK and PortAudio kept off the terminal), listing
 * devices, and finding one by index or name.
 *
 * ALSA, JACK and PortAudio print to file descriptor 2 while they probe devices (every PCM
 * in the ALSA configuration is opened once by Pa_Initialize), so those calls run with
 * descriptor 2 pointed at /dev/null for their duration (padev_quiet_begin/end). */
#ifndef FORMDESK_PADEV_H
#define FORMDESK_PADEV_H

#include <stdbool.h>
#include "base/err.h"

/* One device as PortAudio describes it. */
struct padev_info {
	int index;             /* PortAudio's device index */
	char name[160];        /* as PortAudio names it (for ALSA: the PCM or card name) */
	char api[32];          /* host API: "ALSA", "JACK Audio Connection Kit", "OSS" */
	int max_in, max_out;   /* channels */
	double default_rate;   /* Hz */
	bool default_in, default_out; /* the host API's default input / output */
};

/* The sentence to show when no device exists (no newline): says so and offers the corpus
 * and typed modes. A static string. */
extern const char padev_no_device_hint[];

/* padev_init: start PortAudio (counted: each successful call needs one padev_done).
 * stderr is silenced while it probes. On failure *errmsg (caller frees; may be NULL)
 * carries PortAudio's message. Errors: ERR_AUDIO. */
enum err padev_init(char **errmsg);

/* padev_done: balance one padev_init; the last one stops PortAudio (stderr silenced). */
void padev_done(void);

/* padev_list: every device. Needs padev_init. Output: *out (caller frees with free(); NULL
 * when *n is 0) and *n. Errors: ERR_AUDIO (PortAudio failed to count), ERR_NOMEM. */
enum err padev_list(struct padev_info **out, int *n);

/* padev_find: the device spec names, for input (true) or output (false). spec NULL or ""
 * means the default device; all digits is an index; otherwise a name: an exact match, else
 * the one device whose name contains spec (case-insensitive). The device must have
 * channels in that direction. Needs padev_init. Output: *index. On failure *errmsg
 * (caller frees; may be NULL) says why (no device at all gives padev_no_device_hint).
 * Errors: ERR_NOTFOUND (no such device, several match, no device at all). */
enum err padev_find(const char *spec, bool input, int *index, char **errmsg);

/* padev_quiet_begin: point descriptor 2 at /dev/null. Output: a descriptor holding the
 * old stderr for padev_quiet_end, or -1 if nothing was changed. FORMDESK_AUDIO_VERBOSE=1
 * in the environment leaves stderr alone (for debugging a device). */
int padev_quiet_begin(void);

/* padev_quiet_end: restore stderr from saved (padev_quiet_begin's result; -1 does
 * nothing). */
void padev_quiet_end(int saved);

#endif
