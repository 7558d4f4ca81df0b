/* padev: PortAudio start-up, device listing and lookup (see padev.h). */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <portaudio.h>

#include "padev.h"

const char padev_no_device_hint[] =
	"no audio device found (PortAudio lists none: no sound card, or no ALSA/JACK device "
	"this user may open). A live call needs a microphone; without one, play recorded "
	"callers with `formdesk --corpus demo` (or respin), or type the caller's words with "
	"`formdesk --typed`.";

/* Only the main thread starts and stops audio, so a plain counter suffices. */
static int init_count;

int padev_quiet_begin(void)
{
	const char *v = getenv("FORMDESK_AUDIO_VERBOSE");
	int saved, null;

	if (v && strcmp(v, "1") == 0)
		return -1;
	fflush(stderr);
	saved = dup(2);
	if (saved < 0)
		return -1;
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, 2) < 0) {
		if (null >= 0)
			close(null);
		close(saved);
		return -1;
	}
	close(null);
	return saved;
}

void padev_quiet_end(int saved)
{
	if (saved < 0)
		return;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
}

static void set_msg(char **errmsg, const char *fmt, const char *a, const char *b)
{
	char buf[768];

	if (!errmsg)
		return;
	snprintf(buf, sizeof(buf), fmt, a, b);
	*errmsg = strdup(buf);
}

enum err padev_init(char **errmsg)
{
	PaError pe;
	int q;

	if (init_count > 0) {
		init_count++;
		return ERR_OK;
	}
	q = padev_quiet_begin();
	pe = Pa_Initialize();
	padev_quiet_end(q);
	if (pe != paNoError) {
		set_msg(errmsg, "PortAudio failed to start: %s%s", Pa_GetErrorText(pe), "");
		return ERR_AUDIO;
	}
	init_count = 1;
	return ERR_OK;
}

void padev_done(void)
{
	int q;

	if (init_count <= 0 || --init_count > 0)
		return;
	q = padev_quiet_begin();
	Pa_Terminate();
	padev_quiet_end(q);
}

static void fill(int i, struct padev_info *d)
{
	const PaDeviceInfo *pi = Pa_GetDeviceInfo(i);
	const PaHostApiInfo *hi = pi ? Pa_GetHostApiInfo(pi->hostApi) : NULL;

	memset(d, 0, sizeof(*d));
	d->index = i;
	if (!pi)
		return;
	snprintf(d->name, sizeof(d->name), "%s", pi->name ? pi->name : "");
	snprintf(d->api, sizeof(d->api), "%s", hi && hi->name ? hi->name : "");
	d->max_in = pi->maxInputChannels;
	d->max_out = pi->maxOutputChannels;
	d->default_rate = pi->defaultSampleRate;
	d->default_in = hi && hi->defaultInputDevice == i;
	d->default_out = hi && hi->defaultOutputDevice == i;
}

enum err padev_list(struct padev_info **out, int *n)
{
	struct padev_info *v = NULL;
	int count = Pa_GetDeviceCount();

	if (count < 0)
		return ERR_AUDIO;
	if (count > 0) {
		v = calloc((size_t)count, sizeof(*v));
		if (!v)
			return ERR_NOMEM;
		for (int i = 0; i < count; i++)
			fill(i, &v[i]);
	}
	*out = v;
	*n = count;
	return ERR_OK;
}

/* Case-insensitive substring test (ASCII folding: device names are ASCII in practice). */
static bool contains(const char *hay, const char *needle)
{
	size_t hn = strlen(hay), nn = strlen(needle);

	for (size_t i = 0; i + nn <= hn; i++) {
		size_t j = 0;
		while (j < nn && tolower((unsigned char)hay[i + j]) == tolower((unsigned char)needle[j]))
			j++;
		if (j == nn)
			return true;
	}
	return false;
}

enum err padev_find(const char *spec, bool input, int *index, char **errmsg)
{
	const char *dir = input ? "input" : "output";
	int count = Pa_GetDeviceCount(), found = -1, matches = 0;
	bool digits = spec && *spec;

	if (count <= 0) {
		set_msg(errmsg, "%s%s", padev_no_device_hint, "");
		return ERR_NOTFOUND;
	}
	if (!spec || !*spec) {
		PaDeviceIndex d = input ? Pa_GetDefaultInputDevice() : Pa_GetDefaultOutputDevice();
		if (d == paNoDevice) {
			set_msg(errmsg, "no default %s device; pick one with --%s-device (formdesk devices lists them)",
				dir, dir);
			return ERR_NOTFOUND;
		}
		*index = d;
		return ERR_OK;
	}
	for (const char *p = spec; *p; p++)
		if (!isdigit((unsigned char)*p))
			digits = false;
	if (digits) {
		long i = strtol(spec, NULL, 10);
		const PaDeviceInfo *pi = i < count ? Pa_GetDeviceInfo((int)i) : NULL;
		if (!pi) {
			set_msg(errmsg, "no audio device %s (formdesk devices lists them)%s", spec, "");
			return ERR_NOTFOUND;
		}
		if ((input ? pi->maxInputChannels : pi->maxOutputChannels) <= 0) {
			set_msg(errmsg, "audio device %s has no %s channels", spec, dir);
			return ERR_NOTFOUND;
		}
		*index = (int)i;
		return ERR_OK;
	}
	for (int i = 0; i < count; i++) {
		const PaDeviceInfo *pi = Pa_GetDeviceInfo(i);
		if (!pi || !pi->name || (input ? pi->maxInputChannels : pi->maxOutputChannels) <= 0)
			continue;
		if (strcmp(pi->name, spec) == 0) {
			*index = i;
			return ERR_OK;
		}
		if (contains(pi->name, spec)) {
			found = i;
			matches++;
		}
	}
	if (matches == 1) {
		*index = found;
		return ERR_OK;
	}
	if (matches > 1)
		set_msg(errmsg, "several %s devices match '%s'; give the full name or the index", dir, spec);
	else
		set_msg(errmsg, "no %s device named '%s' (formdesk devices lists them)", dir, spec);
	return ERR_NOTFOUND;
}
