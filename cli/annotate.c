/* annotate: the labelling desk.
 *
 * formdesk annotate --db FILE --task name-match|turn-errors|stt --annotator NAME
 *                   [--corpus DIR|demo|respin] [--include-exact] [--order judges|stored]
 *                   [--field NAME] [--call ID] [--run N] [--tts espeak|none|PROVIDER[:MODEL]]
 *
 * Draws the task's items from the calls recorded in FILE (annotations/queue.h), then
 * opens the labelling screen (tui/annotate.h). --corpus names the folder of the calls'
 * corpus when its name alone does not find it; --tts the voice v says the agent's words
 * in (espeak by default; a hosted voice is kept in the TTS cache beside FILE). stderr:
 * calls passed over and why.
 * Exit status: 0 done (also when there is nothing to label, which it says); 1 a database
 * without a finished call (nothing is written to it), or options that leave no item;
 * 2 bad usage, a database that cannot be opened, or a label that could not be saved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "annotations/labels.h"
#include "annotations/queue.h"
#include "annotations/task.h"
#include "sessions/calls/ttscache.h"
#include "tui/annotate.h"
#include "sessions/store/store.h"
#include "tui/term.h"

/* name_ok: an annotator's name: not empty, no control characters, at most 64 bytes. */
static bool name_ok(const char *s)
{
	if (!s || !s[0] || strlen(s) > 64)
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/* has_calls: 0 when db holds finished recorded calls; else says why not on stderr (the
 * file is missing or no session database: 2; no call: 1), having written nothing. */
static int has_calls(const char *db)
{
	static const struct store_call_filter finished = {.finished = true};
	struct store *st = NULL;
	struct store_call_row *calls = NULL;
	int n = 0, rc = 2;
	enum err e;

	if (compose_open_db("annotate", db, STORE_EXISTING, &st) != ERR_OK)
		goto out;
	if ((e = store_calls(st, &finished, &calls, &n)) != ERR_OK) {
		fprintf(stderr, "formdesk annotate: %s\n", store_error(st));
		goto out;
	}
	rc = 0;
	if (n == 0) {
		fprintf(stderr, "formdesk annotate: %s: no recorded call has ended, so there is "
				"nothing to label (record calls with formdesk run, the simulator or a "
				"live call)\n", db);
		rc = 1;
	}
out:
	store_calls_free(calls, n);
	store_close(st);
	return rc;
}

/* say_new_annotator: a name nobody has labelled task t under, where others have: said on
 * stderr (a mistyped name would start a second identity), then the screen opens for them
 * as a new annotator. */
static void say_new_annotator(struct labels *l, enum labels_task t, const char *db,
			      const char *who)
{
	struct labels_label *v = NULL;
	int n = 0;
	bool known = false;
	char list[512] = "";

	if (labels_all(l, t, &v, &n) != ERR_OK)
		n = 0;
	for (int i = 0; i < n; i++) {
		known |= strcmp(v[i].annotator, who) == 0;
		char word[80];
		snprintf(word, sizeof word, "%s%s", list[0] ? ", " : "", v[i].annotator);
		/* labels come by item then annotator: a name already listed is skipped */
		if (!strstr(list, v[i].annotator) && strlen(list) + strlen(word) + 1 < sizeof list)
			strcat(list, word);
	}
	if (n && !known)
		fprintf(stderr, "formdesk annotate: --annotator '%s': nobody of that name has "
				"labelled %s items in %s (they are labelled by %s); starting as a new "
				"annotator\n",
			who, labels_task_name(t), db, list);
	labels_all_free(v, n);
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_opts o = {0};
	struct labels *l = NULL;
	enum labels_task t;
	char *msg = NULL, *notes = NULL;
	int added = 0, rc = 2;
	enum err e;
	struct backend voice;
	struct ttscache *cache = NULL;

	enum opts_result parsed = opts_parse(&cmd_annotate_opts, argc, argv, &o, NULL, NULL, NULL);
	if (parsed != OPTS_OK)
		return parsed == OPTS_HELP ? 0 : 2;
	const char *db = o.db, *task = o.task, *who = o.annotator, *corpus = o.corpus;
	const struct queue_view view = {
		.include_exact = o.include_exact,
		.stored_order = o.order && strcmp(o.order, "stored") == 0,
		.field = o.field,
		.call = o.call,
		.run = o.run,
	};
	if (compose_task("annotate", task, &t) != ERR_OK)
		return 2;
	if (!name_ok(who)) {
		fprintf(stderr, "formdesk annotate: --annotator '%s': a name of 1 to 64 bytes "
				"without control characters is needed\n", who);
		return 2;
	}
	if (o.order && strcmp(o.order, "judges") != 0 && strcmp(o.order, "stored") != 0) {
		fprintf(stderr, "formdesk annotate: --order '%s': judges or stored\n", o.order);
		return 2;
	}
	/* a file without recorded calls gets no annotation tables: nothing is written */
	if ((rc = has_calls(db)) != 0)
		return rc;
	rc = 2;
	if ((e = compose_labels("annotate", db, &l)) != ERR_OK)
		goto out;
	say_new_annotator(l, t, db, who);
	e = queue_build(l, t, corpus, &notes, &added);
	if (notes)
		fprintf(stderr, "%s", notes);
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk annotate: %s\n",
			e == ERR_DB ? labels_error(l) : err_str(e));
		goto out;
	}
	{
		struct labels_item *v = NULL;
		int n = 0;
		if ((e = labels_items(l, t, &v, &n)) != ERR_OK) {
			fprintf(stderr, "formdesk annotate: %s\n", labels_error(l));
			goto out;
		}
		if (n == 0) {
			printf("%s: nothing to label for %s: %s\n", db, task, task_ops(t)->empty);
			rc = 0;
			goto out;
		}
		/* the deterministic judge decides first, so the queue can put what it is
		 * least sure of first */
		if (!view.stored_order && task_ops(t)->judge && (e = task_ops(t)->judge(l)) != ERR_OK) {
			labels_items_free(v, n);
			fprintf(stderr, "formdesk annotate: %s\n", labels_error(l));
			goto out;
		}
		struct queue_group *g = NULL;
		int ng = 0;
		e = queue_groups(l, v, n, &view, &g, &ng);
		queue_groups_free(g, ng);
		labels_items_free(v, n);
		if (e != ERR_OK) {
			fprintf(stderr, "formdesk annotate: %s\n", labels_error(l));
			goto out;
		}
		if (ng == 0) {
			printf("%s: nothing to label for %s under%s%s%s%s%s%s: %d items, none shown%s\n", db,
			       task, o.field ? " --field " : "", o.field ? o.field : "",
			       o.call ? " --call " : "", o.call ? o.call : "", o.run ? " --run" : "",
			       o.run ? " N" : "", n,
			       o.include_exact ? "" : " (exact matches are left out: --include-exact)");
			rc = 1;
			goto out;
		}
	}
	const char *why = NULL;
	if ((e = ttscache_voice(o.tts, db, &voice, &cache, &why)) != ERR_OK) {
		fprintf(stderr, "formdesk annotate: --tts %s: %s\n", o.tts ? o.tts : "espeak", why);
		goto out;
	}
	term_locale();
	if ((e = annotate_run(l, t, who, &view, &voice, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk annotate: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	rc = 0;
out:
	ttscache_free(cache);
	backend_cleanup();
	free(msg);
	free(notes);
	labels_close(l);
	return rc;
}
