/* test_turnkind: the turn-taking rules of agent/hindi/turnkind.h on the shipped word lists:
 * which transcripts are backchannels (tests/data/turnkind_backchannel.tsv: the issue's
 * "हाँ", "हम्म", "हाँ हाँ", "जी", "अच्छा", "ok"; not an answer with words in it), which
 * turns are unfinished (tests/data/turnkind_unfinished.tsv: the "उम्म्म्म", "अ",
 * "hmm", "वो..."; "mera naam"; not a whole answer), and what a caller heard of the agent's
 * words cut at a time: whole words only, and the sentence the cut fell in is where the
 * agent goes on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/hindi/lexicon.h"
#include "agent/hindi/turnkind.h"
#include "tests/support/table.h"
#include "tests/support/testmain.h"

static struct lexicon *lex;

static int setup(void **state)
{
	char *msg = NULL;
	(void)state;
	if (lexicon_load(lexicon_default_dir(), &lex, &msg) != ERR_OK) {
		fprintf(stderr, "%s\n", msg ? msg : "no word lists");
		free(msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	lexicon_free(lex);
	return 0;
}

/* A rule on a transcript and what its failures say. */
struct rule {
	bool (*is)(const struct lexicon *lex, const char *said);
	const char *yes, *no; /* a row that should be, or should not be, and was not */
};

/* word row: TRANSCRIPT yes|no, whether the rule ud holds for it. */
static void word_row(struct table_row *r, const void *ud)
{
	const struct rule *rule = ud;
	bool want = strcmp(r->col[1], "yes") == 0;
	if (rule->is(lex, r->col[0]) != want)
		fail_msg("%s: '%s' %s", r->name, r->col[0], want ? rule->yes : rule->no);
}

static void test_backchannel(void **state)
{
	static const struct rule backchannel = {turnkind_backchannel, "should be a backchannel",
						"is no backchannel"};
	(void)state;
	table_each("tests/data/turnkind_backchannel.tsv", 2, 2, TABLE_UNESCAPE, word_row, &backchannel);
	assert_false(turnkind_backchannel(lex, NULL));
}

static void test_unfinished(void **state)
{
	static const struct rule unfinished = {turnkind_unfinished, "should be unfinished",
					       "is a whole turn"};
	(void)state;
	table_each("tests/data/turnkind_unfinished.tsv", 2, 2, TABLE_UNESCAPE, word_row, &unfinished);
}

static void test_heard(void **state)
{
	/* 40 code points: "अब बस तीन सवाल बचे हैं।" is 23 of them, 1 space, then 16 */
	static const char q[] = "अब बस तीन सवाल बचे हैं। क्या वही नंबर है?";
	const char *second = strstr(q, "क्या");
	size_t resume = 99, n;
	(void)state;

	n = turnkind_heard(q, 0, 4000, &resume);
	assert_int_equal(n, 0);
	assert_int_equal(resume, 0);
	/* all of it played */
	n = turnkind_heard(q, 4000, 4000, &resume);
	assert_int_equal(n, strlen(q));
	assert_int_equal(resume, strlen(q));
	/* cut inside "सवाल": heard up to "तीन", the agent goes on from the start */
	n = turnkind_heard(q, 1200, 4000, &resume);
	assert_int_equal(n, strlen("अब बस तीन"));
	assert_int_equal(resume, 0);
	/* cut inside the question: the first sentence heard whole, the question again */
	n = turnkind_heard(q, 3000, 4000, &resume);
	assert_true(n > (size_t)(second - q) && n < strlen(q));
	assert_true(q[n] == ' ');
	assert_int_equal(resume, (size_t)(second - q));
	/* length not known: 70 ms a code point, 1900 ms is 27 of 40, in the question */
	n = turnkind_heard(q, 1900, 0, &resume);
	assert_int_equal(resume, (size_t)(second - q));
	assert_int_equal(n, (size_t)(second - q) - 1);
	/* played past its end */
	assert_int_equal(turnkind_heard(q, 5000, 0, NULL), strlen(q));
}

TESTMAIN(setup, teardown,
	  cmocka_unit_test(test_backchannel),
	  cmocka_unit_test(test_unfinished),
	  cmocka_unit_test(test_heard))
