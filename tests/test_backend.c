/* The backend table: lookup by "PROVIDER[:MODEL]" per stage (STT, EXTRACT, REPLY, TTS), the known names an unknown
 * provider's error lists (made from the stage's table, offline first), offline backends
 * with a ctx of their own, and the ops that tell a network backend from an offline one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/stages/backend.h"
#include "agent/rules/extraction.h"
#include "agent/rules/form.h"
#include "agent/hindi/lexicon.h"
#include "agent/stages/tts.h"
#include "tests/support/testmain.h"

static void test_known(void **state)
{
	(void)state;
	char buf[256];
	const char *why = NULL;
	struct backend b;
	assert_string_equal(backend_known(BACKEND_STT, buf, sizeof buf),
			    "reference, elevenlabs, sarvam, deepgram, openai, groq, google, whispercpp");
	assert_string_equal(backend_known(BACKEND_EXTRACT, buf, sizeof buf),
			    "rules, openai, openrouter, gemini, mistral, groq, anthropic, local");
	assert_string_equal(backend_known(BACKEND_REPLY, buf, sizeof buf),
			    "script, openai, openrouter, gemini, mistral, groq, anthropic, local");
	/* truncated to fit, never beyond the buffer */
	assert_string_equal(backend_known(BACKEND_STT, buf, 12), "reference, ");
	assert_int_equal(backend_stt("nosuch", &b, &why), ERR_NOTFOUND);
	assert_non_null(strstr(why, "unknown STT provider \"nosuch\" (known: reference, elevenlabs,"));
	assert_int_equal(backend_reply("nosuch", &b, &why), ERR_NOTFOUND);
	assert_non_null(strstr(why, "(known: script, openai,"));
	assert_string_equal(backend_stage_name(BACKEND_EXTRACT), "EXTRACT");
	assert_string_equal(backend_default(BACKEND_STT), "reference");
	assert_string_equal(backend_default(BACKEND_EXTRACT), "rules");
	assert_string_equal(backend_default(BACKEND_REPLY), "script");
	assert_string_equal(backend_default(BACKEND_TTS), TTS_DEFAULT);
	/* TTS: the offline backends first, then the hosted voices */
	assert_string_equal(backend_known(BACKEND_TTS, buf, sizeof buf),
			    "espeak, none, sarvam, elevenlabs, google, openai, azure");
	assert_int_equal(backend_tts("festival", &b, &why), ERR_NOTFOUND);
	assert_non_null(strstr(why, "unknown TTS provider \"festival\" (known: espeak, none, sarvam,"));
	assert_int_equal(backend_tts("none", &b, NULL), ERR_OK);
	assert_true(b.ops->silent);
	assert_false(backend_is_network(&b));
	struct tts_audio a = {.n = 9};
	assert_int_equal(backend_speak(&b, "नमस्ते", &a), ERR_OK);
	assert_int_equal(a.n, 0);
	assert_null(a.samples);
	/* a backend of another stage is refused */
	assert_int_equal(backend_speak(&(struct backend){"x", NULL, NULL}, "", &a), ERR_UNSUPPORTED);
}

static void test_offline(void **state)
{
	(void)state;
	struct backend s, x1, x2, r;
	assert_int_equal(backend_stt("reference", &s, NULL), ERR_OK);
	assert_int_equal(backend_extract("rules", &x1, NULL), ERR_OK);
	assert_int_equal(backend_extract("rules", &x2, NULL), ERR_OK);
	assert_int_equal(backend_reply("script", &r, NULL), ERR_OK);
	assert_string_equal(x1.name, "rules");
	/* the rule-based extractor keeps its form analysis in a ctx of its own */
	assert_non_null(x1.ctx);
	assert_ptr_not_equal(x1.ctx, x2.ctx);
	assert_false(backend_is_network(&s) || backend_is_network(&x1) || backend_is_network(&r));
	assert_true(s.ops->reference_only);

	struct stt_request sr = {.reference = "haan ji", .language = "hi"};
	char *text = NULL;
	struct http_req *hr = NULL;
	struct backend_usage u;
	assert_int_equal(backend_start(&s, &sr, &hr, &u), ERR_UNSUPPORTED);
	assert_null(hr);
	assert_int_equal(backend_transcribe(&s, &sr, &text), ERR_OK);
	assert_string_equal(text, "haan ji");
	free(text);
	assert_false(backend_last_usage(&s, &u));
	/* a backend of another stage is refused by the typed calls */
	assert_int_equal(backend_transcribe(&r, &sr, &text), ERR_INVALID);

	struct form *f = NULL;
	struct lexicon *lex = NULL;
	char *msg = NULL;
	assert_int_equal(form_load("forms/armman_enrollment.json", &f, NULL), ERR_OK);
	assert_int_equal(lexicon_load(lexicon_default_dir(), &lex, &msg), ERR_OK);
	struct extract_request xr = {.form = f, .lex = lex, .asked = 3, .transcript = "haan ji"};
	for (int i = 0; i < 2; i++) { /* the second call reuses the ctx's analysis */
		struct extraction *ex = NULL;
		assert_int_equal(backend_extract_fields(&x1, &xr, &ex), ERR_OK);
		assert_int_equal(ex->n, 1);
		extraction_free(ex);
	}
	lexicon_free(lex);
	form_free(f);
	backend_cleanup();
}

static void test_network(void **state)
{
	(void)state;
	struct backend b;
	setenv("OPENAI_API_KEY", "sk-test", 1);
	unsetenv("FORMDESK_CONFIG");
	assert_int_equal(backend_extract("openai:gpt-x", &b, NULL), ERR_OK);
	assert_string_equal(b.name, "openai");
	assert_true(backend_is_network(&b));
	assert_non_null(b.ops->ack);
	assert_int_equal(b.ops->stage, BACKEND_EXTRACT);
	assert_int_equal(backend_reply("openai", &b, NULL), ERR_OK);
	assert_true(backend_is_network(&b));
	assert_null(b.ops->ack);
	backend_cleanup();
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_known),
	  cmocka_unit_test(test_offline),
	  cmocka_unit_test(test_network))
