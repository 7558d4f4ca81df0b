/* fuzz_audio: an audio file (WAV, FLAC, MP3 headers and data) from any bytes (fuzz.h). */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>

#include "audio/audiofile.h"

int fuzz_audio(const uint8_t *data, size_t len)
{
	/* the extension is taken from the first bytes' kind, as a corpus names its files */
	const char *name = len >= 4 && data[0] == 'f' && data[1] == 'L' ? "in.flac"
			   : len >= 4 && data[0] == 'R' ? "in.wav"
							  : "in.mp3";
	if (fuzz_write(fuzz_scratch(), name, data, len) != 0)
		return 0;
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", fuzz_scratch(), name);
	float *s = NULL;
	size_t n = 0;
	if (audiofile_read(path, 16000, &s, &n, NULL) == ERR_OK)
		free(s);
	remove(path);
	return 0;
}
