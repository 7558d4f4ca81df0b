#include "reply_llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "agent/rules/decision.h"
#include "agent/rules/form.h"
#include "llm.h"
#include "llm_stream.h"

LLM_STAGE_DEFINE(reply_llm)

static const char *const SYSTEM_HEAD =
	"You are the voice of a phone agent that fills a form by asking a caller questions in "
	"Hindi. The form's rules have already decided what happens next; each decision reaches "
	"you as an ask_question or end_call tool call in the conversation. Phrase it:\n"
	"- ask_question: say the question in its \"script\" (or ask for its \"label\") in "
	"simple spoken Hindi in Devanagari, as one single line. If \"retry\" is true, say "
	"briefly what was wrong (\"error\") and ask again. If \"progress\" is given, say it "
	"first. Do not acknowledge or repeat the caller's answer; ask nothing else.\n"
	"- end_call: call the end_call tool with the closing words (its \"script\") in the "
	"\"message\" argument. Never end the call otherwise.\n"
	"Say nothing but the line itself: no quotes, no labels, no English.\n";

static char *system_prompt(const struct form *f)
{
	return str_printf("%s\nForm: %s\nAbout the form: %s\nForm instructions: %s\nYou are: %s\n",
			  SYSTEM_HEAD, f->title ? f->title : "", f->context ? f->context : "",
			  f->instructions ? f->instructions : "",
			  f->agent_persona ? f->agent_persona : "");
}

/* reply_llm_call_id: the injected call's id for turn: "dec" and six digits. One format
 * every provider takes: Mistral requires exactly 9 characters a-z A-Z 0-9
 * (mistral-common, src/mistral_common/protocol/instruct/validator.py: "must be a-z, A-Z,
 * 0-9, with a length of 9"), Anthropic's tool_use ids match ^[a-zA-Z0-9_-]+$
 * (docs.anthropic.com/en/api/messages), OpenAI takes any string. */
static void call_id(int turn, char id[10])
{
	snprintf(id, 10, "dec%06d", turn >= 0 && turn <= 999999 ? turn : 0);
}

/* History, then the decision d as an assistant tool call (its arguments as
 * decision_reply_arguments writes them, fitting the declared tool) and its result. */
static cJSON *messages(const struct reply_request *req, int turns, const struct decision *d)
{
	cJSON *arr = llm_history(req->history, turns);
	cJSON *args = decision_reply_arguments(d);
	if (!arr || !args) {
		cJSON_Delete(arr);
		cJSON_Delete(args);
		return NULL;
	}
	char id[10];
	call_id(d->turn, id);
	cJSON *m = cJSON_CreateObject();
	cJSON_AddItemToArray(arr, m);
	cJSON_AddStringToObject(m, "role", "assistant");
	cJSON *calls = cJSON_AddArrayToObject(m, "tool_calls");
	cJSON *c = cJSON_CreateObject();
	cJSON_AddItemToArray(calls, c);
	cJSON_AddStringToObject(c, "id", id);
	cJSON_AddStringToObject(c, "name", decision_tool_name(d->tool));
	cJSON_AddItemToObject(c, "arguments", args);
	/* the result: what the rules saw, so the model can say what was wrong, and whether
	 * the caller cut the agent off ("barge_in") or said nothing ("silence") */
	cJSON *result = cJSON_CreateObject();
	static const char *const keys[] = {"verdicts", "skipped", "call_status", "reason",
					   "barge_in", "silence"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(req->decision, keys[i]);
		if (v)
			cJSON_AddItemToObject(result, keys[i], cJSON_Duplicate(v, 1));
	}
	char *rt = cJSON_PrintUnformatted(result);
	cJSON_Delete(result);
	cJSON *tm = cJSON_CreateObject();
	cJSON_AddItemToArray(arr, tm);
	cJSON_AddStringToObject(tm, "role", "tool");
	cJSON_AddStringToObject(tm, "tool_call_id", id);
	cJSON_AddStringToObject(tm, "content", rt ? rt : "{}");
	cJSON_free(rt);
	return arr;
}

static const cJSON *decision_call(const struct reply_request *req)
{
	const cJSON *call = cJSON_GetObjectItemCaseSensitive(req->decision, "tool_call");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(call, "name");
	return cJSON_IsString(name) ? call : NULL;
}

enum err reply_llm_request(const struct reply_llm *x, const struct reply_request *req,
			   struct http_req **out)
{
	const struct provider *p = x->c.p;
	const cJSON *call = decision_call(req);
	struct decision *d = NULL;
	if (!call)
		return ERR_INVALID;
	enum err e = decision_from_json(req->decision, &d);
	if (e)
		return e == ERR_PARSE ? ERR_INVALID : e;
	e = ERR_NOMEM;
	char *system = system_prompt(req->form);
	cJSON *msgs = messages(req, p->reply_history, d);
	cJSON *ask = decision_reply_schema(DECISION_ASK_QUESTION);
	cJSON *end = decision_reply_schema(DECISION_END_CALL);
	if (!system || !msgs || !ask || !end)
		goto out;
	struct llm_tool tools[2] = {
		{decision_tool_name(DECISION_ASK_QUESTION), decision_reply_description(DECISION_ASK_QUESTION), ask},
		{decision_tool_name(DECISION_END_CALL), decision_reply_description(DECISION_END_CALL), end},
	};
	struct llm_call c = {
		.system = system,
		.messages = msgs,
		.tools = tools,
		.n_tools = 2,
		.effort = p->reply_effort,
		.stream = p->stream,
	};
	struct llm_stream *st = NULL;
	if (c.stream && (e = llm_stream_new(p->info->protocol, &st)) != ERR_OK)
		goto out;
	if ((e = llm_build(p, &c, out)) != ERR_OK) {
		llm_stream_free(st);
		goto out;
	}
	http_req_limits(*out, p->timeout_ms, p->retries, 0);
	if (st) /* the line is read as it streams, sentence by sentence */
		http_req_observe(*out, llm_stream_observe, st, llm_stream_free);
out:
	decision_free(d);
	free(system);
	cJSON_Delete(msgs);
	cJSON_Delete(ask);
	cJSON_Delete(end);
	return e;
}

/* One line: whitespace runs (newlines too) become one space, ends trimmed. */
static char *one_line(const char *s)
{
	char *o = malloc(strlen(s) + 1);
	if (!o)
		return NULL;
	size_t n = 0;
	bool space = false;
	for (const char *c = s; *c; c++) {
		if (*c == ' ' || *c == '\n' || *c == '\r' || *c == '\t') {
			space = n > 0;
			continue;
		}
		if (space)
			o[n++] = ' ';
		space = false;
		o[n++] = *c;
	}
	o[n] = '\0';
	return o;
}

/* with_intro: the call's opening (decision turn 0) begins with the form's scripts.intro,
 * as the script replier's does: the model phrases the first question only, and an
 * opening without the intro never tells the caller who calls and why. A line that already
 * holds the intro is kept as it is. Errors: ERR_NOMEM (*s unchanged). */
static enum err with_intro(const struct reply_request *req, char **s)
{
	const cJSON *turn = cJSON_GetObjectItemCaseSensitive(req->decision, "turn");
	const char *intro = req->form ? req->form->intro : NULL;
	char *joined = NULL;

	if ((turn && (!cJSON_IsNumber(turn) || turn->valuedouble != 0)) || !intro ||
	    !intro[strspn(intro, " \t\r\n")] || strstr(*s, intro))
		return ERR_OK;
	intro += strspn(intro, " \t\r\n");
	if (asprintf(&joined, "%s %s", intro, *s) < 0)
		return ERR_NOMEM;
	free(*s);
	*s = joined;
	return ERR_OK;
}

enum err reply_llm_response(const struct reply_llm *x, const struct reply_request *req,
			    const struct http_result *res, char **text, struct backend_usage *u)
{
	const struct provider *p = x->c.p;
	struct backend_usage local;
	if (!u)
		u = &local;
	llm_usage_begin(u, p);
	llm_usage_http(u, res);
	const cJSON *call = decision_call(req);
	if (!call)
		return ERR_INVALID;
	bool ending = strcmp(cJSON_GetObjectItemCaseSensitive(call, "name")->valuestring, "end_call") == 0;
	struct llm_result *r = NULL;
	enum err e = llm_response(p, res, &r, u);
	if (e)
		return e;
	const char *line = NULL;
	cJSON *args = NULL;
	e = ERR_BACKEND;
	if (r->refusal) {
		snprintf(u->error, sizeof(u->error), "the model refused: %.200s", r->refusal);
		goto out;
	}
	if (r->at_limit) { /* half a line is not said */
		snprintf(u->error, sizeof(u->error), "the answer was cut off at the token limit");
		goto out;
	}
	if (r->cut_short) { /* a stream that never came to its end is no answer */
		snprintf(u->error, sizeof(u->error), "the answer stream was cut short before its end");
		goto out;
	}
	if (r->tool_name && strcmp(r->tool_name, "end_call") == 0) {
		if (!ending) {
			snprintf(u->error, sizeof(u->error),
				 "the model tried to end the call; the rules asked a question");
			goto out;
		}
		args = r->tool_args ? cJSON_Parse(r->tool_args) : NULL;
		const cJSON *msg = cJSON_GetObjectItemCaseSensitive(args, "message");
		line = cJSON_IsString(msg) && msg->valuestring[0] ? msg->valuestring : r->text;
		if (!line) {
			/* the closing words are the form's own script when the model gave none */
			const cJSON *script = cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(call, "arguments"), "script");
			line = cJSON_IsString(script) ? script->valuestring : NULL;
		}
	} else if (r->tool_name) {
		snprintf(u->error, sizeof(u->error), "the model called \"%.40s\" instead of speaking",
			 r->tool_name);
		goto out;
	} else {
		line = r->text;
	}
	if (!line || !*line) {
		snprintf(u->error, sizeof(u->error), "the model gave no words to say");
		goto out;
	}
	char *s = one_line(line);
	if (!s) {
		e = ERR_NOMEM;
		goto out;
	}
	if (!*s) {
		free(s);
		snprintf(u->error, sizeof(u->error), "the model gave no words to say");
		goto out;
	}
	if ((e = with_intro(req, &s)) != ERR_OK) {
		free(s);
		goto out;
	}
	*text = s;
	e = ERR_OK;
out:
	cJSON_Delete(args);
	llm_result_free(r);
	return e;
}

bool reply_llm_sentence_ready(const struct http_xfer *x, char **text)
{
	return llm_stream_piece(x, llm_stream_take_sentence, text);
}

const struct backend_ops reply_llm_ops = {
	.stage = BACKEND_REPLY,
	LLM_OPS,
	.sentence = reply_llm_sentence_ready,
};
