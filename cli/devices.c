/* devices: `formdesk devices` (also `formdesk --list-devices`): the audio devices
 * PortAudio finds, one a line: index, name, input and output channels, default rate, host
 * API, and which are the defaults. With none, says so and offers the corpus and typed
 * modes (exit 1). The library chatter of ALSA, JACK and PortAudio during the probe is kept
 * off the terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audio/padev.h"
#include "commands.h"
#include "opts.h"

int cmd_devices(int argc, char **argv)
{
	struct padev_info *devs = NULL;
	char *msg = NULL;
	int n = 0, rc = 2;

	enum opts_result pr = opts_parse(&cmd_devices_opts, argc, argv, NULL, NULL, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	if (padev_init(&msg) != ERR_OK) {
		fprintf(stderr, "formdesk devices: %s\n", msg ? msg : "PortAudio failed to start");
		free(msg);
		return 2;
	}
	if (padev_list(&devs, &n) != ERR_OK) {
		fprintf(stderr, "formdesk devices: PortAudio could not list devices\n");
		goto out;
	}
	if (n == 0) {
		printf("formdesk: %s\n", padev_no_device_hint);
		rc = 1;
		goto out;
	}
	printf("audio devices (pick one with --input-device / --output-device, by index or name):\n");
	for (int i = 0; i < n; i++) {
		const struct padev_info *d = &devs[i];
		printf("%3d  %-32s in %-3d out %-3d %6.0f Hz  %s%s%s\n", d->index, d->name, d->max_in,
		       d->max_out, d->default_rate, d->api, d->default_in ? "  [default input]" : "",
		       d->default_out ? "  [default output]" : "");
	}
	rc = 0;
out:
	free(devs);
	padev_done();
	return rc;
}
