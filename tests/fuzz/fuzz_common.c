/* fuzz_common: the target table and helpers shared by the fuzz targets (fuzz.h). */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct fuzz_target targets[] = {
	{"form", fuzz_form},         {"corpus", fuzz_corpus}, {"chat", fuzz_chat},
	{"anthropic", fuzz_anthropic}, {"stt", fuzz_stt},     {"extract", fuzz_extract},
	{"audio", fuzz_audio},       {"callimport", fuzz_callimport},
};

const struct fuzz_target *fuzz_targets(int *n)
{
	*n = (int)(sizeof(targets) / sizeof(targets[0]));
	return targets;
}

char *fuzz_text(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1);
	if (!s)
		return NULL;
	if (len)
		memcpy(s, data, len);
	s[len] = '\0';
	return s;
}

static char scratch[64];

static void remove_scratch(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz: could not remove %s\n", scratch);
}

const char *fuzz_scratch(void)
{
	if (!scratch[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(scratch, sizeof(scratch), "%.40s/fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(scratch)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(remove_scratch);
	}
	return scratch;
}

int fuzz_write(const char *dir, const char *name, const void *data, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = len ? fwrite(data, 1, len, f) : 0;
	return fclose(f) == 0 && w == len ? 0 : -1;
}
