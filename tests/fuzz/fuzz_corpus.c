/* fuzz_corpus: a corpus folder's files from any bytes (fuzz.h). */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sessions/corpus/corpus.h"

static const char *const names[] = {"corpus.json", "calls.csv", "transcripts.csv", "expected.jsonl"};

/* The smallest WAV file: a header with no samples (the loader only checks that it exists). */
static const unsigned char wav[44] = {
	'R', 'I', 'F', 'F', 36, 0, 0, 0, 'W', 'A', 'V', 'E', 'f', 'm', 't', ' ', 16, 0, 0, 0, 1, 0,
	1, 0, 0x80, 0x3e, 0, 0, 0, 0x7d, 0, 0, 2, 0, 16, 0, 'd', 'a', 't', 'a', 0, 0, 0, 0};

int fuzz_corpus(const uint8_t *data, size_t len)
{
	char dir[600], audios[620];
	snprintf(dir, sizeof(dir), "%s/corpus", fuzz_scratch());
	snprintf(audios, sizeof(audios), "%s/audios", dir);
	mkdir(dir, 0700);
	mkdir(audios, 0700);
	fuzz_write(audios, "u_name.wav", wav, sizeof(wav));
	/* every file absent unless the input names it */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char p[700];
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		remove(p);
	}
	const char *p = (const char *)data, *end = p + len, *name = "transcripts.csv";
	while (p <= end) {
		/* the next marker line "==> NAME <==" */
		const char *m = p, *next = end, *nname = NULL;
		size_t nl = 0;
		while (m < end) {
			const char *eol = memchr(m, '\n', (size_t)(end - m));
			const char *le = eol ? eol : end;
			if (le - m > 8 && memcmp(m, "==> ", 4) == 0 && memcmp(le - 4, " <==", 4) == 0) {
				next = m;
				nname = m + 4;
				nl = (size_t)(le - 4 - nname);
				break;
			}
			m = eol ? eol + 1 : end;
		}
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strcmp(name, names[i]) == 0)
				fuzz_write(dir, name, p, (size_t)(next - p));
		if (!nname)
			break;
		static char buf[64];
		snprintf(buf, sizeof(buf), "%.*s", (int)(nl < 60 ? nl : 60), nname);
		name = buf;
		const char *eol = memchr(next, '\n', (size_t)(end - next));
		p = eol ? eol + 1 : end;
		if (!eol) {
			for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				if (strcmp(name, names[i]) == 0)
					fuzz_write(dir, name, "", 0);
			break;
		}
	}
	struct corpus *c = NULL;
	char *msg = NULL;
	if (corpus_load(dir, &c, &msg) == ERR_OK)
		corpus_free(c);
	free(msg);
	return 0;
}
