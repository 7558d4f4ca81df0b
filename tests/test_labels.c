/* The annotation desk's storage, queues, judges' cache and calibration
 * (annotations/labels.c, queue.c, judges.c, calib.c) on the recorded calls of
 * tests/data/annotate_calls.sql, with the corpus tests/data/corpus_good; and two
 * processes labelling one database at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "agent/stages/backend.h"
#include "annotations/calib.h"
#include "annotations/judges.h"
#include "annotations/labels.h"
#include "annotations/queue.h"
#include "annotations/task.h"
#include "tests/support/dbq.h"
#include "tests/support/mockserver.h"

#define CORPUS "tests/data/corpus_good"

static char dbpath[64];

/* make_db: a fresh database holding the recorded calls of the fixture. */
static void make_db(void)
{
	snprintf(dbpath, sizeof dbpath, "/tmp/formdesk-labels-%d.db", (int)getpid());
	dbq_remove(dbpath);
	dbq_exec_file(dbpath, "tests/data/annotate_calls.sql");
}

static int setup(void **state)
{
	struct labels *l = NULL;
	char *msg = NULL;
	make_db();
	if (labels_open(dbpath, &l, &msg) != ERR_OK)
		fail_msg("labels_open: %s", msg);
	*state = l;
	return 0;
}

static int teardown(void **state)
{
	labels_close(*state);
	dbq_remove(dbpath);
	return 0;
}

static long long item_id(struct labels *l, enum labels_task t, const char *key)
{
	struct labels_item *v;
	int n;
	long long id = 0;
	assert_int_equal(labels_items(l, t, &v, &n), ERR_OK);
	for (int i = 0; i < n; i++)
		if (strcmp(v[i].key, key) == 0)
			id = v[i].id;
	labels_items_free(v, n);
	if (!id)
		fail_msg("no item '%s'", key);
	return id;
}

static void open_errors(void **state)
{
	(void)state;
	struct labels *l = NULL;
	char *msg = NULL;
	assert_int_equal(labels_open("/nonexistent/x.db", &l, &msg), ERR_NOTFOUND);
	assert_non_null(strstr(msg, "/nonexistent/x.db"));
	assert_null(l);
	free(msg);
	/* a SQLite file that is not a session database */
	sqlite3 *db;
	const char *p = "/tmp/formdesk-labels-empty.db";
	unlink(p);
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	sqlite3_exec(db, "CREATE TABLE x (a)", NULL, NULL, NULL);
	sqlite3_close(db);
	assert_int_equal(labels_open(p, &l, &msg), ERR_NOTFOUND);
	assert_non_null(strstr(msg, "no recorded calls"));
	free(msg);
	unlink(p);
}

/* labels_open opens the file the store's one way: the fixture's version 1 store tables
 * are migrated to the current version; annotation tables of a newer formdesk are refused,
 * naming the file and both versions. */
static void open_policy(void **state)
{
	struct labels *l = *state;
	struct labels *again = (struct labels *)&again; /* must stay untouched */
	char *msg = NULL, want[96];
	sqlite3 *db;
	sqlite3_stmt *q;

	assert_int_equal(sqlite3_open(dbpath, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(q, 0), STORE_SCHEMA_VERSION);
	sqlite3_finalize(q);
	assert_int_equal(sqlite3_exec(db, "UPDATE ann_meta SET value = '9' WHERE name = 'schema_version'",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	(void)l;
	assert_int_equal(labels_open(dbpath, &again, &msg), ERR_DB);
	assert_ptr_equal(again, (struct labels *)&again);
	snprintf(want, sizeof want, "annotation tables version 9 is newer than this formdesk knows (%d)",
		 LABELS_SCHEMA_VERSION);
	if (!strstr(msg, dbpath) || !strstr(msg, want))
		fail_msg("got '%s'", msg);
	free(msg);
}

static void tasks_and_labels(void **state)
{
	(void)state;
	enum labels_task t;
	assert_int_equal(labels_task_parse("turn-errors", &t), ERR_OK);
	assert_int_equal(t, LABELS_TURN_ERRORS);
	assert_int_equal(labels_task_parse("names", &t), ERR_NOTFOUND);
	assert_string_equal(labels_task_name(LABELS_STT), "stt");
	/* a task's label and whether it is one of the task's */
	static const struct {
		enum labels_task task;
		const char *label;
		bool valid;
	} labels[] = {
		{LABELS_NAME_MATCH, "same", true},
		{LABELS_STT, "unsure", true},
		{LABELS_NAME_MATCH, "stt_error", false},
		{LABELS_TURN_ERRORS, "bargein_mishandled", true},
		{LABELS_TURN_ERRORS, "none", true},
		{LABELS_TURN_ERRORS, "same", false},
		{LABELS_NAME_MATCH, NULL, false},
	};
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
		if (labels_valid(labels[i].task, labels[i].label) != labels[i].valid)
			fail_msg("%s: '%s' %s", labels_task_name(labels[i].task),
				 labels[i].label ? labels[i].label : "(null)",
				 labels[i].valid ? "should be a label" : "is no label");
}

/* build: the queue of task t from CORPUS (its notes dropped); fails the test if it cannot
 * be built. */
static void build(struct labels *l, enum labels_task t)
{
	char *notes = NULL;
	assert_int_equal(queue_build(l, t, CORPUS, &notes, NULL), ERR_OK);
	free(notes);
}

/* queue: build the queue of task t (build) and read it back. Output: its items, *n of them
 * (caller frees with labels_items_free). */
static struct labels_item *queue(struct labels *l, enum labels_task t, int *n)
{
	struct labels_item *v = NULL;
	build(l, t);
	assert_int_equal(labels_items(l, t, &v, n), ERR_OK);
	return v;
}

/* The name-match queue: six items from calls 1-6 (call 7's expected name is null, call
 * 8's corpus cannot be found, call 9 is in progress). */
/* Every task's table is whole: answers with one distinct key each, accepted by
 * labels_valid, rows naming string members of the item, a queue hook, a start hint and
 * the words for an empty queue; no table for a value that is no task. */
static void task_tables(void **state)
{
	(void)state;
	for (int t = 0; t < LABELS_NTASKS; t++) {
		const struct task_ops *ops = task_ops((enum labels_task)t);
		assert_non_null(ops);
		assert_true(ops->n_labels > 0);
		assert_int_equal((int)strlen(ops->keys), ops->n_labels);
		for (int i = 0; i < ops->n_labels; i++) {
			assert_true(labels_valid((enum labels_task)t, ops->labels[i]));
			assert_non_null(ops->shown[i]);
			assert_non_null(ops->help[i]);
			assert_ptr_equal(strchr(ops->keys, ops->keys[i]), &ops->keys[i]);
		}
		for (int r = 0; r < ops->n_rows; r++)
			assert_true(ops->rows[r].offset + sizeof(char *) <= sizeof(struct labels_item));
		assert_non_null(ops->queue);
		assert_non_null(ops->start_hint);
		assert_non_null(ops->empty);
	}
	assert_true(task_ops(LABELS_NAME_MATCH)->judged && task_ops(LABELS_NAME_MATCH)->judge);
	assert_true(task_ops(LABELS_TURN_ERRORS)->tags && !task_ops(LABELS_TURN_ERRORS)->judged);
	assert_string_equal(task_ops(LABELS_TURN_ERRORS)->labels[11], "none");
	assert_int_equal(task_ops(LABELS_TURN_ERRORS)->keys[11], 'n');
	assert_null(task_ops(LABELS_NTASKS));
	char *notes = NULL;
	assert_int_equal(queue_build(NULL, LABELS_NTASKS, NULL, &notes, NULL), ERR_INVALID);
	assert_null(notes);
}

static void queue_name_match(void **state)
{
	struct labels *l = *state;
	struct labels_item *v;
	char *notes = NULL;
	int n, added;

	assert_int_equal(queue_build(l, LABELS_NAME_MATCH, CORPUS, &notes, &added), ERR_OK);
	assert_int_equal(added, 6);
	assert_non_null(notes);
	assert_non_null(strstr(notes, "corpus 'nowhere'"));
	free(notes);
	assert_int_equal(labels_items(l, LABELS_NAME_MATCH, &v, &n), ERR_OK);
	assert_int_equal(n, 6);
	assert_string_equal(v[0].key, "call 1 field name");
	assert_string_equal(v[0].expected, "Sunita Devi");
	assert_string_equal(v[0].captured, "सुनीता देवी");
	assert_string_equal(v[0].transcript, "मेरा नाम सुनीता देवी है");
	assert_string_equal(v[0].audio, "tests/data/corpus_good/audios/u_name.wav");
	assert_string_equal(v[0].field, "name");
	assert_int_equal(v[0].turn, 1);
	assert_null(v[3].audio);
	long long first = v[0].id;
	labels_items_free(v, n);
	/* drawing again adds nothing and keeps the ids */
	assert_int_equal(queue_build(l, LABELS_NAME_MATCH, CORPUS, &notes, &added), ERR_OK);
	free(notes);
	assert_int_equal(labels_items(l, LABELS_NAME_MATCH, &v, &n), ERR_OK);
	assert_int_equal(n, 6);
	assert_int_equal(v[0].id, first);
	labels_items_free(v, n);
}

/* turn-errors: both turns of the failed call 7, and the turns of calls 1-6, which end
 * "complete" where the corpus expects call1 to stay "in_progress". */
static void queue_turn_errors(void **state)
{
	int n;
	struct labels_item *v = queue(*state, LABELS_TURN_ERRORS, &n);

	assert_int_equal(n, 8);
	for (int i = 0; i < n; i++) {
		char key[32];
		snprintf(key, sizeof key, "turn %d", i + 1);
		assert_string_equal(v[i].key, key);
	}
	assert_non_null(strstr(v[7].context, "\"verdicts\":[{\"field\":\"district\""));
	assert_non_null(strstr(v[7].context, "\"call_status\":\"failed\""));
	assert_non_null(strstr(v[7].context, "\"reply\":\"धन्यवाद।\""));
	labels_items_free(v, n);
}

/* stt: turns whose transcript differs from the reference: call 1's Devanagari and calls
 * 3-6's words differ from "mera naam Sunita Devi hai"; call 2's is the same. */
static void queue_stt(void **state)
{
	int n;
	struct labels_item *v = queue(*state, LABELS_STT, &n);

	assert_int_equal(n, 7);
	assert_string_equal(v[0].expected, "mera naam Sunita Devi hai");
	assert_string_equal(v[0].captured, "मेरा नाम सुनीता देवी है");
	assert_string_equal(v[1].key, "turn 3");
	labels_items_free(v, n);
}

static void put_get_undo(void **state)
{
	struct labels *l = *state;
	char *lb = NULL, *nt = NULL;
	long long id;

	build(l, LABELS_NAME_MATCH);
	id = item_id(l, LABELS_NAME_MATCH, "call 3 field name");
	assert_int_equal(labels_get(l, id, "asha", &lb, &nt), ERR_NOTFOUND);
	assert_int_equal(labels_put(l, id, "asha", "different", NULL), ERR_OK);
	assert_int_equal(labels_put(l, id, "ravi", "same", "sounds alike"), ERR_OK);
	assert_int_equal(labels_get(l, id, "asha", &lb, &nt), ERR_OK);
	assert_string_equal(lb, "different");
	assert_null(nt);
	free(lb);
	/* a second label by the same person replaces the first */
	assert_int_equal(labels_put(l, id, "asha", "unsure", "n or m?"), ERR_OK);
	assert_int_equal(labels_get(l, id, "asha", &lb, &nt), ERR_OK);
	assert_string_equal(lb, "unsure");
	assert_string_equal(nt, "n or m?");
	free(lb);
	free(nt);
	/* each annotator sees only their own */
	assert_int_equal(labels_get(l, id, "ravi", &lb, NULL), ERR_OK);
	assert_string_equal(lb, "same");
	free(lb);
	/* bad labels */
	assert_int_equal(labels_put(l, id, "asha", "stt_error", NULL), ERR_INVALID);
	assert_non_null(strstr(labels_error(l), "not a name-match label"));
	assert_int_equal(labels_put(l, id, "", "same", NULL), ERR_INVALID);
	assert_int_equal(labels_put(l, 99999, "asha", "same", NULL), ERR_NOTFOUND);
	/* undo */
	assert_int_equal(labels_remove(l, id, "asha"), ERR_OK);
	assert_int_equal(labels_get(l, id, "asha", &lb, NULL), ERR_NOTFOUND);
	assert_int_equal(labels_remove(l, id, "asha"), ERR_OK);

	struct labels_label *all;
	int n;
	assert_int_equal(labels_all(l, LABELS_NAME_MATCH, &all, &n), ERR_OK);
	assert_int_equal(n, 1);
	assert_string_equal(all[0].annotator, "ravi");
	assert_string_equal(all[0].note, "sounds alike");
	assert_non_null(all[0].created_at);
	labels_all_free(all, n);
}

static void judge_cache(void **state)
{
	struct labels *l = *state;
	char *d = NULL;
	long long id;
	int n;

	build(l, LABELS_NAME_MATCH);
	assert_int_equal(judges_run_namematch(l, &n), ERR_OK);
	assert_int_equal(n, 6);
	id = item_id(l, LABELS_NAME_MATCH, "call 4 field name");
	assert_int_equal(judges_get(l, id, JUDGES_NAMEMATCH, JUDGES_NAMEMATCH_VERSION, &d), ERR_OK);
	assert_string_equal(d, "unsure"); /* "Sunita" against "Sunita Devi" */
	free(d);
	id = item_id(l, LABELS_NAME_MATCH, "call 1 field name");
	assert_int_equal(judges_get(l, id, JUDGES_NAMEMATCH, JUDGES_NAMEMATCH_VERSION, &d), ERR_OK);
	assert_string_equal(d, "same");
	free(d);
	/* a decision per item and prompt version */
	assert_int_equal(judges_get(l, id, "llm:x:y", "name-v1", &d), ERR_NOTFOUND);
	assert_int_equal(judges_put(l, id, "llm:x:y", "name-v1", "different", "{}"), ERR_OK);
	assert_int_equal(judges_put(l, id, "llm:x:y", "name-v2", "same", NULL), ERR_OK);
	assert_int_equal(judges_get(l, id, "llm:x:y", "name-v1", &d), ERR_OK);
	assert_string_equal(d, "different");
	free(d);
	assert_int_equal(judges_put(l, id, "llm:x:y", "name-v1", "maybe", NULL), ERR_INVALID);

	struct judges_id *js;
	assert_int_equal(judges_list(l, LABELS_NAME_MATCH, &js, &n), ERR_OK);
	assert_int_equal(n, 3);
	assert_string_equal(js[0].judge, "llm:x:y");
	assert_string_equal(js[0].version, "name-v1");
	assert_string_equal(js[2].judge, "namematch");
	judges_list_free(js, n);
}

/* The LLM judge through the model backends, against a local server speaking the chat
 * completions protocol: asked once per item and prompt version, at temperature 0. */
static void llm_judge(void **state)
{
	struct labels *l = *state;
	struct mockserver *ms = mockserver_start();
	char *d = NULL, why[512] = "";
	int asked = -1;

	assert_non_null(ms);
	setenv("LOCAL_BASE_URL", mockserver_url(ms), 1);
	mockserver_set_default(ms, (struct mock_reply){200, NULL,
		"{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":"
		"\"{\\\"verdict\\\":\\\"different\\\"}\"},\"finish_reason\":\"stop\"}]}", NULL, 0});
	build(l, LABELS_NAME_MATCH);
	if (judges_run_llm(l, "local:judge-model", &asked, why, sizeof why) != ERR_OK)
		fail_msg("judges_run_llm: %s", why);
	assert_int_equal(asked, 6);
	assert_int_equal(mockserver_count(ms), 6);
	const struct mock_request *q = mockserver_request(ms, 0);
	assert_true(mock_body_has(q, "\"temperature\":0"));
	assert_true(mock_body_has(q, "Expected: Sunita Devi"));
	assert_int_equal(judges_get(l, item_id(l, LABELS_NAME_MATCH, "call 2 field name"),
				    "llm:local:judge-model", JUDGES_LLM_PROMPT_VERSION, &d), ERR_OK);
	assert_string_equal(d, "different");
	free(d);
	/* the cache: nothing is asked again at this prompt version */
	assert_int_equal(judges_run_llm(l, "local:judge-model", &asked, why, sizeof why), ERR_OK);
	assert_int_equal(asked, 0);
	assert_int_equal(mockserver_count(ms), 6);
	/* an answer that is not a verdict is an error naming the item */
	mockserver_set_default(ms, (struct mock_reply){200, NULL,
		"{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"maybe\"},"
		"\"finish_reason\":\"stop\"}]}", NULL, 0});
	assert_int_equal(judges_run_llm(l, "local:other-model", &asked, why, sizeof why), ERR_PARSE);
	assert_non_null(strstr(why, "not a verdict"));
	unsetenv("LOCAL_BASE_URL");
	mockserver_stop(ms);
	backend_cleanup();
}

/* The LLM judge is the judge row of the backend table: an unknown provider gets that
 * table's message, with the judges it knows. */
static void llm_judge_backend_row(void **state)
{
	struct labels *l = *state;
	char why[512] = "";
	int asked = -1;

	assert_int_equal(judges_run_llm(l, "nosuch", &asked, why, sizeof why), ERR_NOTFOUND);
	assert_int_equal(asked, 0);
	assert_non_null(strstr(why, "unknown JUDGE provider \"nosuch\" (known: "));
	backend_cleanup();
}

/* The split: FNV-1a 64 of "SEED:KEY", low bit (worked out for these keys). */
static void split_fixed(void **state)
{
	(void)state;
	static const char *const want[] = {"test", "dev", "test", "dev", "test", "dev"};
	for (int i = 0; i < 6; i++) {
		char key[32];
		snprintf(key, sizeof key, "call %d field name", i + 1);
		assert_string_equal(calib_split_name(calib_split_of(key, CALIB_SEED)), want[i]);
		assert_int_equal(calib_split_of(key, 1),
				 i % 2 ? CALIB_TEST : CALIB_DEV);
	}
}

static void put3(struct labels *l, const char *who, const char *const *lbs)
{
	for (int i = 0; i < 6; i++) {
		char key[32];
		snprintf(key, sizeof key, "call %d field name", i + 1);
		if (lbs[i])
			assert_int_equal(labels_put(l, item_id(l, LABELS_NAME_MATCH, key), who,
						    lbs[i], NULL), ERR_OK);
	}
}

static void near(double want, double got)
{
	if (isnan(want) ? !isnan(got) : fabs(want - got) > 1e-9)
		fail_msg("want %.10f got %.10f", want, got);
}

/* Worked by hand in docs/annotation.md ("A worked example"). */
static void calibration(void **state)
{
	struct labels *l = *state;
	static const char *const asha[] = {"same", "same", "different", "different", "same", "different"};
	static const char *const ravi[] = {"same", "same", "same", "different", "same", "different"};
	static const char *const meena[] = {"same", "same", "different", "different", "unsure", "same"};
	struct calib *c = NULL;

	build(l, LABELS_NAME_MATCH);
	assert_int_equal(judges_run_namematch(l, NULL), ERR_OK);
	put3(l, "asha", asha);
	put3(l, "ravi", ravi);
	assert_int_equal(calib_run(l, LABELS_NAME_MATCH, NULL, CALIB_SEED, &c), ERR_OK);
	assert_int_equal(c->n_items, 6);
	assert_int_equal(c->n_compared, 5);
	assert_int_equal(c->n_tie, 1);
	assert_int_equal(c->n_dev, 3);
	assert_int_equal(c->n_test, 2);
	assert_string_equal(c->agreement, "cohen");
	near(2.0 / 3.0, c->iaa.kappa);
	assert_int_equal(c->n_judges, 1);
	const struct calib_judge *j = &c->judges[0];
	long all[] = {3, 0, 0, 0, 1, 1, 0, 0, 0};
	assert_memory_equal(j->split[CALIB_ALL].table, all, sizeof all);
	near(0.8, j->split[CALIB_ALL].accuracy);
	near(1.0, j->split[CALIB_ALL].tpr);
	near(0.5, j->split[CALIB_ALL].tnr);
	near(0.36 / 0.56, j->split[CALIB_ALL].kappa.kappa);
	near(0.5, j->split[CALIB_DEV].kappa.kappa);
	near(NAN, j->split[CALIB_TEST].tnr);
	assert_true(j->split[CALIB_TEST].kappa.degenerate);
	near(1.0, j->split[CALIB_TEST].kappa.kappa);
	assert_int_equal(c->n_dis, 1);
	assert_string_equal(c->dis[0].key, "call 4 field name");
	assert_string_equal(c->dis[0].decision, "unsure");
	assert_string_equal(c->dis[0].majority, "different");
	assert_string_equal(c->dis[0].humans, "asha=different, ravi=different");
	calib_free(c);

	put3(l, "meena", meena);
	assert_int_equal(calib_run(l, LABELS_NAME_MATCH, "namematch", CALIB_SEED, &c), ERR_OK);
	assert_string_equal(c->agreement, "fleiss");
	near(66.0 / 174.0, c->iaa.kappa);
	assert_int_equal(c->n_compared, 6);
	j = &c->judges[0];
	near(5.0 / 6.0, j->split[CALIB_ALL].accuracy);
	near(2.0 / 3.0, j->split[CALIB_ALL].tnr);
	near(15.0 / 21.0, j->split[CALIB_ALL].kappa.kappa);
	near(1.0, j->split[CALIB_TEST].kappa.kappa);
	assert_false(j->split[CALIB_TEST].kappa.degenerate);
	calib_free(c);
	/* a judge nobody has run */
	assert_int_equal(calib_run(l, LABELS_NAME_MATCH, "nobody", CALIB_SEED, &c), ERR_OK);
	assert_int_equal(c->n_judges, 0);
	calib_free(c);
}

/* Two processes label 300 items each at the same moment, each label its own
 * transaction: every label must be there afterwards. */
#define MANY 300
static void two_processes(void **state)
{
	struct labels *l = *state;
	struct labels_item *v = calloc(MANY, sizeof *v);
	static const char *const who[2] = {"asha", "ravi"};
	pid_t pid[2];

	for (int i = 0; i < MANY; i++) {
		char key[32];
		snprintf(key, sizeof key, "load %d", i);
		v[i].task = LABELS_STT;
		v[i].key = strdup(key);
	}
	assert_int_equal(labels_items_add(l, v, MANY), ERR_OK);
	for (int p = 0; p < 2; p++) {
		pid[p] = fork();
		assert_true(pid[p] >= 0);
		if (pid[p] == 0) {
			struct labels *mine = NULL;
			int bad = 0;
			if (labels_open(dbpath, &mine, NULL) != ERR_OK)
				_exit(3);
			for (int i = 0; i < MANY; i++)
				if (labels_put(mine, v[i].id, who[p], i % 3 ? "same" : "different",
					       NULL) != ERR_OK)
					bad++;
			labels_close(mine);
			_exit(bad ? 1 : 0);
		}
	}
	for (int p = 0; p < 2; p++) {
		int st;
		assert_int_equal(waitpid(pid[p], &st, 0), pid[p]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	struct labels_label *all;
	int n;
	assert_int_equal(labels_all(l, LABELS_STT, &all, &n), ERR_OK);
	assert_int_equal(n, 2 * MANY);
	for (int i = 0; i < n; i++)
		assert_string_equal(all[i].label, (all[i].item - v[0].id) % 3 ? "same" : "different");
	labels_all_free(all, n);
	labels_items_free(v, MANY);
}

/* place: the 1-based place of the entry holding item id among g, 0 when not shown; its
 * size in *count. */
static int place(const struct labels_item *v, const struct queue_group *g, int ng, long long id,
		 int *count)
{
	for (int i = 0; i < ng; i++)
		for (int m = 0; m < g[i].n; m++)
			if (v[g[i].members[m]].id == id) {
				*count = g[i].n;
				return i + 1;
			}
	return 0;
}

/* The queue as the annotator sees it, from tests/data/queue_view.tsv: exact matches left
 * out unless asked, identical items one entry with their count, least sure first. */
static void queue_view(void **state)
{
	struct labels *l = *state;
	struct labels_item items[16] = {0};
	int want[16][4], ni = 0;
	char line[512];
	FILE *f = fopen("tests/data/queue_view.tsv", "r");

	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		char *col[10], *save = NULL, *p = line;
		int nc = 0;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = 0;
		for (char *c; nc < 10 && (c = strsep(&p, "\t"));)
			col[nc++] = c;
		(void)save;
		assert_int_equal(nc, 10);
		struct labels_item *it = &items[ni];
		it->task = LABELS_NAME_MATCH;
		it->key = strdup(col[0]);
		it->field = strdup(col[1]);
		it->expected = strdup(col[2]);
		it->captured = strdup(col[3]);
		it->call_id = ni + 1;
		assert_int_equal(labels_items_add(l, it, 1), ERR_OK);
		if (strcmp(col[4], "-") != 0)
			assert_int_equal(judges_put(l, it->id, "a", "v1", col[4], NULL), ERR_OK);
		if (strcmp(col[5], "-") != 0)
			assert_int_equal(judges_put(l, it->id, "b", "v1", col[5], NULL), ERR_OK);
		for (int k = 0; k < 4; k++)
			want[ni][k] = atoi(col[6 + k]);
		ni++;
	}
	fclose(f);
	assert_int_equal(ni, 9);

	struct labels_item *v;
	int n;
	assert_int_equal(labels_items(l, LABELS_NAME_MATCH, &v, &n), ERR_OK);
	const struct queue_view views[3] = {{0}, {.stored_order = true}, {.include_exact = true}};
	for (int w = 0; w < 3; w++) {
		struct queue_group *g;
		int ng;
		assert_int_equal(queue_groups(l, v, n, &views[w], &g, &ng), ERR_OK);
		for (int i = 0; i < ni; i++) {
			int count = 0, at = place(v, g, ng, items[i].id, &count);
			if (at != want[i][w] || (at && count != want[i][3]))
				fail_msg("view %d, %s: place %d of %d (count %d), want %d (count %d)", w,
					 items[i].key, at, ng, count, want[i][w], want[i][3]);
		}
		/* no two entries show identical items */
		for (int a = 0; a < ng; a++)
			for (int b = a + 1; b < ng; b++) {
				const struct labels_item *x = &v[g[a].members[0]], *y = &v[g[b].members[0]];
				assert_false(strcmp(x->field, y->field) == 0 &&
					     strcmp(x->expected, y->expected) == 0 &&
					     strcmp(x->captured, y->captured) == 0);
			}
		queue_groups_free(g, ng);
	}
	/* filters: a field, a call (its row id) */
	struct queue_group *g;
	int ng, count;
	const struct queue_view by_field = {.field = "child_name"}, by_call = {.call = "6"};
	assert_int_equal(queue_groups(l, v, n, &by_field, &g, &ng), ERR_OK);
	assert_int_equal(ng, 1);
	assert_int_equal(place(v, g, ng, items[6].id, &count), 1);
	queue_groups_free(g, ng);
	assert_int_equal(queue_groups(l, v, n, &by_call, &g, &ng), ERR_OK);
	assert_int_equal(ng, 1);
	assert_int_equal(place(v, g, ng, items[5].id, &count), 1);
	queue_groups_free(g, ng);
	/* a run: the fixture's calls, migrated, are in runs of the store; none in run 999 */
	const struct queue_view by_run = {.run = 999};
	assert_int_equal(queue_groups(l, v, n, &by_run, &g, &ng), ERR_OK);
	assert_int_equal(ng, 0);
	queue_groups_free(g, ng);
	struct store_call_row *calls = NULL;
	int ncalls = 0;
	const struct store_call_filter one = {.id = 6};
	assert_int_equal(store_calls(labels_store(l), &one, &calls, &ncalls), ERR_OK);
	assert_int_equal(ncalls, 1);
	const struct queue_view by_run6 = {.run = calls[0].info.run_id};
	store_calls_free(calls, ncalls);
	assert_int_equal(queue_groups(l, v, n, &by_run6, &g, &ng), ERR_OK);
	assert_true(place(v, g, ng, items[5].id, &count) > 0);
	queue_groups_free(g, ng);
	/* search: what the item shows, letter case aside */
	assert_true(queue_item_has(&v[4], "लक्ष्मी"));
	assert_true(queue_item_has(&v[7], "rekha k"));
	assert_false(queue_item_has(&v[7], "Sunita"));
	assert_true(queue_item_has(&v[7], NULL));
	labels_items_free(v, n);
	for (int i = 0; i < ni; i++)
		labels_item_clear(&items[i]);
}

/* Several tags on one turn where more than one stage failed: which labels are valid, and
 * adding or taking off a tag keeps the taxonomy's order. */
static void several_tags(void **state)
{
	(void)state;
	static const struct {
		const char *label;
		bool valid;
	} valid[] = {
		{"stt_error", true},
		{"stt_error,extraction_missed", true},
		{"stt_error,extraction_missed,reply_wording", true},
		{"extraction_missed,stt_error", false}, /* not in the taxonomy's order */
		{"stt_error,stt_error", false},
		{"stt_error,", false},
		{",stt_error", false},
		{"stt_error,same", false},
		{"", false},
	};
	for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++)
		if (labels_valid(LABELS_TURN_ERRORS, valid[i].label) != valid[i].valid)
			fail_msg("'%s' valid: want %d", valid[i].label, valid[i].valid);
	assert_false(labels_valid(LABELS_NAME_MATCH, "same,different"));
	static const struct {
		const char *label, *tag, *want;
	} toggle[] = {
		{NULL, "wrong_branch", "wrong_branch"},
		{"wrong_branch", "stt_error", "stt_error,wrong_branch"},
		{"stt_error,wrong_branch", "reply_wording", "stt_error,wrong_branch,reply_wording"},
		{"stt_error,wrong_branch", "stt_error", "wrong_branch"},
		{"wrong_branch", "wrong_branch", ""},
	};
	for (size_t i = 0; i < sizeof toggle / sizeof toggle[0]; i++) {
		char *got = labels_tag_toggle(LABELS_TURN_ERRORS, toggle[i].label, toggle[i].tag);
		assert_non_null(got);
		assert_string_equal(got, toggle[i].want);
		free(got);
	}
	assert_null(labels_tag_toggle(LABELS_TURN_ERRORS, NULL, "same"));
	assert_null(labels_tag_toggle(LABELS_NAME_MATCH, NULL, "same"));
	assert_true(labels_has_tag("stt_error,wrong_branch", "wrong_branch"));
	assert_false(labels_has_tag("stt_error,wrong_branch", "wrong"));
	assert_false(labels_has_tag(NULL, "stt_error"));
}

/* A group's label: one row per member item, all or none; flags for review. */
static void group_label_and_flag(void **state)
{
	struct labels *l = *state;
	char *lb = NULL;
	long long ids[3];
	bool on = true;

	build(l, LABELS_TURN_ERRORS);
	ids[0] = item_id(l, LABELS_TURN_ERRORS, "turn 1");
	ids[1] = item_id(l, LABELS_TURN_ERRORS, "turn 2");
	ids[2] = 99999;
	/* an item that is not there: nothing written */
	assert_int_equal(labels_put_many(l, ids, 3, "asha", "stt_error", NULL), ERR_NOTFOUND);
	assert_int_equal(labels_get(l, ids[0], "asha", NULL, NULL), ERR_NOTFOUND);
	/* a bad label: nothing written */
	assert_int_equal(labels_put_many(l, ids, 2, "asha", "same", NULL), ERR_INVALID);
	assert_int_equal(labels_get(l, ids[0], "asha", NULL, NULL), ERR_NOTFOUND);
	assert_int_equal(labels_put_many(l, ids, 2, "asha", "stt_error,wrong_branch", "both"),
			 ERR_OK);
	struct labels_label *all;
	int n;
	assert_int_equal(labels_all(l, LABELS_TURN_ERRORS, &all, &n), ERR_OK);
	assert_int_equal(n, 2); /* once per member item */
	assert_string_equal(all[1].label, "stt_error,wrong_branch");
	assert_string_equal(all[1].note, "both");
	labels_all_free(all, n);
	assert_int_equal(labels_get(l, ids[1], "asha", &lb, NULL), ERR_OK);
	assert_true(labels_has_tag(lb, "wrong_branch"));
	free(lb);
	/* flags */
	assert_int_equal(labels_flagged(l, ids[0], "asha", &on), ERR_OK);
	assert_false(on);
	assert_int_equal(labels_flag(l, ids[0], "asha", true, "ask ravi"), ERR_OK);
	assert_int_equal(labels_flagged(l, ids[0], "asha", &on), ERR_OK);
	assert_true(on);
	assert_int_equal(labels_flagged(l, ids[0], "ravi", &on), ERR_OK);
	assert_false(on);
	assert_int_equal(labels_flag(l, ids[0], "asha", false, NULL), ERR_OK);
	assert_int_equal(labels_flagged(l, ids[0], "asha", &on), ERR_OK);
	assert_false(on);
	assert_int_equal(labels_flag(l, 99999, "asha", true, NULL), ERR_NOTFOUND);
	assert_int_equal(labels_flag(l, ids[0], "", true, NULL), ERR_INVALID);
}

static struct labels_item *find_key(struct labels_item *v, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v[i].key, key) == 0)
			return &v[i];
	return NULL;
}

/* Calls without a corpus (typed, microphone) are labellable, without an expected value;
 * abandoned calls and calls that ended as their corpus expects are no turn-errors items;
 * a turn item shows the field asked, the agent's words, the call so far and the expected
 * value (tests/data/annotate_live.sql). */
static void queue_live_calls(void **state)
{
	struct labels *l = *state;
	struct labels_item *v, *it;
	char *notes = NULL;
	int n;

	dbq_exec_file(dbpath, "tests/data/annotate_live.sql");
	for (int t = 0; t < LABELS_NTASKS; t++) {
		assert_int_equal(queue_build(l, (enum labels_task)t, CORPUS, &notes, NULL), ERR_OK);
		free(notes);
	}
	assert_int_equal(labels_items(l, LABELS_NAME_MATCH, &v, &n), ERR_OK);
	/* the six of calls 1-6, the typed and the microphone call's, call 14's */
	assert_int_equal(n, 9);
	assert_non_null(it = find_key(v, n, "call 10 field name"));
	assert_null(it->expected);
	assert_string_equal(it->captured, "Rekha Kumari");
	assert_string_equal(it->transcript, "mera naam Rekha Kumari hai");
	assert_non_null(it = find_key(v, n, "call 11 field name"));
	assert_string_equal(it->captured, "Sita");
	assert_string_equal(it->audio, "tests/data/corpus_good/audios/u_name.wav");
	/* call 14's name is the expected one: stored, not shown unless asked */
	assert_non_null(it = find_key(v, n, "call 14 field name"));
	struct queue_group *g;
	int ng, count;
	assert_int_equal(queue_groups(l, v, n, NULL, &g, &ng), ERR_OK);
	assert_int_equal(place(v, g, ng, it->id, &count), 0);
	assert_true(place(v, g, ng, find_key(v, n, "call 10 field name")->id, &count) > 0);
	queue_groups_free(g, ng);
	/* a corpus that expects no form: the captured name without an expected value */
	assert_null(find_key(v, n, "call 15 field name"));
	labels_items_free(v, n);
	assert_int_equal(queue_build(l, LABELS_NAME_MATCH, "tests/data/corpus_bargein", &notes, NULL),
			 ERR_OK);
	free(notes);
	assert_int_equal(labels_items(l, LABELS_NAME_MATCH, &v, &n), ERR_OK);
	assert_non_null(it = find_key(v, n, "call 15 field name"));
	assert_null(it->expected);
	assert_string_equal(it->captured, "Sunita");
	labels_items_free(v, n);

	assert_int_equal(labels_items(l, LABELS_TURN_ERRORS, &v, &n), ERR_OK);
	assert_non_null(find_key(v, n, "turn 11")); /* a live call: nothing to compare with */
	assert_null(find_key(v, n, "turn 10"));     /* abandoned: its lines ran out */
	assert_null(find_key(v, n, "turn 12"));     /* abandoned in the simulator */
	assert_null(find_key(v, n, "turn 13"));     /* failed, as its corpus expects */
	assert_non_null(it = find_key(v, n, "turn 15"));
	assert_string_equal(it->field, "district");
	assert_string_equal(it->expected, "Gaya");
	assert_non_null(strstr(it->context, "\"asked\":\"district\""));
	assert_non_null(strstr(it->context, "\"asked_label\":\"District\""));
	assert_non_null(strstr(it->context, "\"question\":\"आपका जिला?\""));
	assert_non_null(strstr(it->context, "\"before\":[{\"agent\":\"कृपया अपना पूरा नाम बताइए।\","
					    "\"caller\":\"mera naam Sunita Devi hai\"}]"));
	assert_non_null(it = find_key(v, n, "turn 14"));
	assert_string_equal(it->expected, "Sunita Devi");
	assert_non_null(strstr(it->context, "\"question\":\"कृपया अपना पूरा नाम बताइए।\""));
	assert_non_null(strstr(it->context, "\"before\":[]"));
	assert_non_null(it = find_key(v, n, "turn 11"));
	assert_null(it->expected); /* no corpus */
	labels_items_free(v, n);

	assert_int_equal(labels_items(l, LABELS_STT, &v, &n), ERR_OK);
	assert_non_null(it = find_key(v, n, "turn 11")); /* recorded: judged by ear */
	assert_null(it->expected);
	assert_string_equal(it->captured, "mera naam Sita hai");
	assert_null(find_key(v, n, "turn 10")); /* typed: no recording, nothing to hear */
	labels_items_free(v, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_errors),
		cmocka_unit_test(tasks_and_labels),
		cmocka_unit_test_setup_teardown(open_policy, setup, teardown),
		cmocka_unit_test(task_tables),
		cmocka_unit_test_setup_teardown(queue_name_match, setup, teardown),
		cmocka_unit_test_setup_teardown(queue_turn_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(queue_stt, setup, teardown),
		cmocka_unit_test_setup_teardown(put_get_undo, setup, teardown),
		cmocka_unit_test_setup_teardown(judge_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(llm_judge, setup, teardown),
		cmocka_unit_test_setup_teardown(llm_judge_backend_row, setup, teardown),
		cmocka_unit_test(split_fixed),
		cmocka_unit_test_setup_teardown(calibration, setup, teardown),
		cmocka_unit_test_setup_teardown(two_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(queue_view, setup, teardown),
		cmocka_unit_test(several_tags),
		cmocka_unit_test_setup_teardown(group_label_and_flag, setup, teardown),
		cmocka_unit_test_setup_teardown(queue_live_calls, setup, teardown),
	};
	return cmocka_run_group_tests_name("labels", tests, NULL, NULL);
}
