/* fuzz_callimport: a file of outside calls from any bytes (fuzz.h). */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/utf8.h"
#include "sessions/calls/callimport.h"
#include "sessions/corpus/corpus.h"

/* The smallest WAV file, so an input naming "a.wav" as a turn's recording finds it. */
static const unsigned char wav[44] = {
	'R', 'I', 'F', 'F', 36, 0, 0, 0, 'W', 'A', 'V', 'E', 'f', 'm', 't', ' ', 16, 0, 0, 0, 1, 0,
	1, 0, 0x80, 0x3e, 0, 0, 0, 0x7d, 0, 0, 2, 0, 16, 0, 'd', 'a', 't', 'a', 0, 0, 0, 0};

int fuzz_callimport(const uint8_t *data, size_t len)
{
	static char dir[600];
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/import", fuzz_scratch());
		mkdir(dir, 0700);
		fuzz_write(dir, "a.wav", wav, sizeof(wav));
	}
	/* the first byte's low bit: plain JSONL (0) or FormBharo's JSON (1) */
	enum callimport_format fmt = len && (data[0] & 1) ? CALLIMPORT_FORMBHARO : CALLIMPORT_JSONL;
	const char *name = fmt == CALLIMPORT_JSONL ? "calls.jsonl" : "c1.json";
	char path[700];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (fuzz_write(dir, name, data + (len > 0), len - (len > 0)) != 0)
		return 0;
	struct corpus *c = NULL;
	char *msg = NULL;
	if (callimport_load(path, fmt, "imported", &c, &msg) == ERR_OK) {
		/* what it accepts is whole text: no NUL byte (the words after it would be
		 * lost), every call named, every turn's words valid UTF-8 */
		if (len > 1 && memchr(data + 1, 0, len - 1))
			abort();
		for (int i = 0; i < c->n_calls; i++) {
			const struct corpus_call *k = &c->calls[i];
			if (!k->id || utf8_bad(k->id, strlen(k->id), false) || k->n_turns < 0)
				abort();
			for (int j = 0; j < k->n_turns; j++)
				if (!k->turns[j].transcript ||
				    utf8_bad(k->turns[j].transcript, strlen(k->turns[j].transcript), false))
					abort();
		}
		corpus_free(c);
	}
	free(msg);
	return 0;
}
