/* decision: the rule layer's decision for one turn, as a C record (what flow_start and
 * flow_turn return), and the one owner of its JSON shape: decision_to_json writes it,
 * decision_from_json reads it back (for decisions read from the store). The panes read the
 * record; REPLY and the store receive its JSON, made once per turn.
 *
 * The JSON shape (unchanged since the record was first built as JSON; flow.h says where
 * the rules come from):
 * {
 *   "turn": 1,                       caller turns so far (0 for the opening decision)
 *   "asked": "district" | null,      the question the caller was answering
 *   "captured": [{"field","raw","value","status":"answered"|"invalid"|"skipped"|"ignored"
 *                 |"held"|"dropped", "reason"?, "branch"?, "turn"?}],
 *                                    every item EXTRACT returned, after normalization, and
 *                                    every held value applied or dropped in this turn
 *                                    ("branch": the branch a held value waits for; "turn":
 *                                    the caller turn the value was said in, when earlier)
 *   "verdicts": [{"field","rule","ok","message"}],   each validator that ran
 *   "faults": ["..."],               backend output the rules refused (unknown field, ...)
 *   "retries": {"field","used","max","left","until_answered","free_reasks"?:{"used","max"}}
 *              | null,                ("free_reasks" once the asked question was re-asked
 *                                    for free: the turn answered another field only)
 *   "branches": [{"id","field","condition","active"}],
 *   "skipped": ["field", ...],       fields skipped in this turn (say their skip_message)
 *   "tool_call": {"name":"ask_question","arguments":{"field","label","script","retry",
 *                  "error"?,"progress"?}}
 *              | {"name":"end_call","arguments":{"status","reason","script"}},
 *   "call_status": "in_progress"|"complete"|"screened_out"|"failed",
 *   "reason": "why this decision",
 *   "barge_in"?: {"at_ms","during"}  added by the call engine, not the rules
 *   "silence"?: true                 added by the call engine: the caller said nothing
 *                                    (a re-ask then states no error, docs/turn-taking.md)
 * }
 * Pure: no I/O, no clock. */
#ifndef FORMDESK_DECISION_H
#define FORMDESK_DECISION_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"

/* FormBharo's call status (concepts/calls.mdx). */
enum call_status {
	CALL_IN_PROGRESS,
	CALL_COMPLETE,
	CALL_SCREENED_OUT,
	CALL_FAILED,
};

/* What became of one item EXTRACT returned. */
enum decision_capture_status {
	DECISION_ANSWERED, /* normalized, valid, stored */
	DECISION_INVALID,  /* refused by a validator; reason says why */
	DECISION_SKIPPED,  /* the caller did not know or declined; reason says which */
	DECISION_IGNORED,  /* not applied; reason says why */
	DECISION_HELD,     /* its branch is not decided yet: kept until it is (branch says
			    * which); answered without being asked when it opens */
	DECISION_DROPPED,  /* a held value thrown away: its branch closed, or a later answer
			    * replaced it; reason says which */
};

struct decision_capture {
	char *field;   /* as EXTRACT named it; NULL when it named none */
	cJSON *raw;    /* EXTRACT's value; NULL for JSON null */
	cJSON *value;  /* the normalized value stored; NULL for JSON null */
	enum decision_capture_status status;
	char *reason;  /* NULL when there is none (no "reason" key) */
	char *branch;  /* the branch id a held value waits for; NULL: no "branch" key */
	int turn;      /* the caller turn the value was said in when it was held; 0: no
			* "turn" key (said in this decision's turn) */
};

struct decision_verdict {
	char *field, *rule; /* rule as the config names it, or "type" */
	bool ok;
	char *message;      /* "" when ok */
};

/* The retries of the question asked (retries.mdx). */
struct decision_retries {
	char *field;
	int used;            /* failed answers so far */
	int max, left;       /* re-asks allowed and left; meaningless when until_answered */
	bool until_answered;
	int free_used;       /* re-asks that used no retry (another field was answered);
			      * 0: no "free_reasks" key */
	int free_max;        /* FLOW_FREE_REASKS */
};

struct decision_branch {
	char *id, *field;
	char *condition;     /* "equals true", "present false", ... */
	bool active;
};

enum decision_tool {
	DECISION_ASK_QUESTION,
	DECISION_END_CALL,
};

/* ask_question's arguments (tool == DECISION_ASK_QUESTION). */
struct decision_ask {
	char *field, *label;
	char *script;        /* NULL for JSON null */
	int retry;           /* re-asks made of this question so far */
	char *error;         /* the validation error to say; NULL: no "error" key */
	char *progress;      /* NULL: no "progress" key */
};

/* end_call's arguments (tool == DECISION_END_CALL). */
struct decision_end {
	enum call_status status;
	char *reason;        /* "all_answered", "retries_exhausted", "end_call_value" */
	char *script;        /* NULL for JSON null */
};

/* One decision. Every string and cJSON in it is owned by it. */
struct decision {
	int turn;
	char *asked;         /* NULL for JSON null */
	struct decision_capture *captured;
	int n_captured;
	struct decision_verdict *verdicts;
	int n_verdicts;
	char **faults;
	int n_faults;
	bool has_retries;    /* false for JSON null */
	struct decision_retries retries;
	struct decision_branch *branches;
	int n_branches;
	char **skipped;
	int n_skipped;
	enum decision_tool tool;
	struct decision_ask ask;
	struct decision_end end;
	enum call_status call_status;
	char *reason;
	bool barge_in;       /* the caller barged in (set by the call engine) */
	long barge_in_at_ms; /* ms into the agent's speech */
	char *barge_in_during; /* "speaking" or "thinking" */
	bool silence;        /* the caller said nothing (set by the call engine) */
};

/* decision_new: an empty decision (turn 0, nothing captured, ask_question, in progress).
 * Output: new decision (caller frees with decision_free), NULL when out of memory. */
struct decision *decision_new(void);
void decision_free(struct decision *d);

/* decision_dup: a deep copy of d. Output: new decision (caller frees), NULL when out of
 * memory or d is NULL. */
struct decision *decision_dup(const struct decision *d);

/* Builders, used by the rule layer. Strings and values are copied (NULL stays NULL).
 * Errors: ERR_NOMEM (d unchanged). */
enum err decision_add_capture(struct decision *d, const char *field, const cJSON *raw,
			      const cJSON *value, enum decision_capture_status status,
			      const char *reason);
/* decision_add_capture_held: the same, with the branch a held value waits for (NULL for
 * none) and the caller turn it was said in (0: this decision's turn). */
enum err decision_add_capture_held(struct decision *d, const char *field, const cJSON *raw,
				   const cJSON *value, enum decision_capture_status status,
				   const char *reason, const char *branch, int turn);
enum err decision_add_fault(struct decision *d, const char *fault);
enum err decision_add_skipped(struct decision *d, const char *field);
enum err decision_add_branch(struct decision *d, const char *id, const char *field,
			     const char *condition, bool active);
/* decision_add_verdicts: append each {"field","rule","ok","message"} object of verdicts
 * (a JSON array as agent/rules/validate.h writes it; NULL appends nothing). */
enum err decision_add_verdicts(struct decision *d, const cJSON *verdicts);

/* decision_to_json: d in the shape above. Output: new cJSON object (caller frees with
 * cJSON_Delete), NULL when out of memory. */
cJSON *decision_to_json(const struct decision *d);

/* decision_from_json: read a decision record back (e.g. from the store's turns.decision).
 * Missing or mistyped keys read as empty (0, NULL, no items), so older or partial records
 * load. Output: *out new decision (caller frees) on ERR_OK. Errors: ERR_PARSE (j is not a
 * JSON object, or its "tool_call" is neither tool with an "arguments" object), ERR_NOMEM. */
enum err decision_from_json(const cJSON *j, struct decision **out);

/* REPLY's two tools, ask_question and end_call, as declared to the model and as the
 * decision is injected into REPLY's history: one table in decision.c defines both, so the
 * injected arguments always fit the declared schema (the FormBharo paper injects the
 * decision as a tool call; providers check a call's arguments against the tool it names).
 *   ask_question {field, label, retry: boolean (a re-ask), script?, error?, progress?}
 *   end_call     {message (the closing words), status?: call status, reason?}
 * The stored record keeps its own shape (above); this one is for the model.
 *
 * decision_reply_schema: tool t's parameters as a JSON schema (type object, properties
 * with type, description and enum, required). Output: new cJSON (caller frees with
 * cJSON_Delete), NULL when out of memory. */
cJSON *decision_reply_schema(enum decision_tool t);

/* decision_reply_description: what tool t is for, said to the model (static string). */
const char *decision_reply_description(enum decision_tool t);

/* decision_reply_arguments: d's tool call arguments in the shape decision_reply_schema(d->tool)
 * declares. Output: new cJSON object (caller frees with cJSON_Delete), NULL when out of memory. */
cJSON *decision_reply_arguments(const struct decision *d);

/* The words of the shape; static strings. call_status_name gives FormBharo's words. */
const char *call_status_name(enum call_status s);
const char *decision_capture_status_name(enum decision_capture_status s);
const char *decision_tool_name(enum decision_tool t);

#endif
