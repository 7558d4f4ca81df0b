/* formdesk tts warm: pre-build the TTS cache (sessions/calls/ttscache.h) for a form: every fixed
 * script (intro, outros, each question's words, skip and retry messages) synthesized once
 * by the chosen hosted voice and kept beside the database (DB.tts/), so calls on that
 * form speak them at once and pay for them once. Prints what was made and what was
 * already kept. Exit status: 0 done, 2 bad usage, an offline voice, or a request that
 * failed (the sentence and the provider's words are said). */
#include <stdio.h>
#include <string.h>

#include "agent/stages/backend.h"
#include "agent/stages/provider.h"
#include "agent/stages/tts.h"
#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "sessions/calls/ttscache.h"

static int warm(int argc, char **argv)
{
	struct tts_opts o = {.tts = "sarvam"};
	struct compose_opts co = {.db = "formdesk.db"};
	enum opts_result pr = opts_parse(&cmd_tts_opts, argc, argv, &o, &co, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	int rc = 2;
	struct compose *c = NULL;
	struct ttscache *cache = NULL;
	struct backend b;
	const char *why = NULL;
	char dir[1024], failed[400];
	int made = 0, had = 0;
	enum err e;
	if (compose_new("tts warm", &co, COMPOSE_FORM | COMPOSE_CONFIG, &c) != ERR_OK)
		goto out;
	if ((e = ttscache_voice(o.tts, co.db, &b, &cache, &why)) != ERR_OK) {
		fprintf(stderr, "formdesk tts warm: --tts %s: %s\n", o.tts, why);
		goto out;
	}
	if (!cache) {
		fprintf(stderr, "formdesk tts warm: --tts %s: an offline voice is not cached (it costs "
				"nothing and speaks at once)\n", o.tts);
		goto out;
	}
	e = ttscache_warm(cache, c->form, &made, &had, failed, sizeof(failed));
	printf("%s: %d sentences synthesized, %d already kept, in %s\n", c->form_path, made, had,
	       ttscache_dir(co.db, dir, sizeof(dir)));
	if (e) {
		fprintf(stderr, "formdesk tts warm: %s\n", failed[0] ? failed : err_str(e));
		goto out;
	}
	rc = 0;
out:
	ttscache_free(cache);
	compose_free(c);
	tts_cleanup();
	return rc;
}

int cmd_tts(int argc, char **argv)
{
	return opts_sub(&cmd_tts_opts, "warm", warm, argc, argv);
}
