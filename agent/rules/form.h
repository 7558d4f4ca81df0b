/* form: a FormBharo agent config (form) in memory, loaded from JSON, and the
 * config checks FormBharo refuses a save for.
 *
 * Source of every rule here: FormBharo's public documentation,
 * ARTPARK-SAHAI-ORG/formbharo-docs, reference/agent-config-schema.mdx,
 * reference/question-types.mdx, reference/validation.mdx, reference/retries.mdx and
 * reference/branching.mdx. Both the stored shape (label/type/context/instructions)
 * and the write shape (question/response_type/description/ai_instructions) load.
 *
 * struct form is read-only data once loaded: other modules read its fields but never
 * write them. It is freed with form_free(). */
#ifndef FORMDESK_FORM_H
#define FORMDESK_FORM_H

#include <stdbool.h>
#include "base/err.h"

enum form_type {
	FORM_STRING,
	FORM_NUMBER,
	FORM_DATE,
	FORM_BOOLEAN,
	FORM_SINGLE_SELECT,
	FORM_MULTI_SELECT,
};

/* The validation types of validation.mdx, one row each, in the order the config check
 * lists them: X(enum suffix, name in the config, another name it loads by or NULL). A new
 * type is one row here plus its rule function in agent/rules/validate.c (rule_<name>, which the
 * build asks for); what its `rules` object holds is read in form.c. */
#define FORM_VALIDATIONS(X) \
	X(PHONE_NUMBER, phone_number, NULL)         /* rules.digits, default 10 */ \
	X(EXACT_NUM_DIGITS, exact_num_digits, NULL) /* rules.digits, default 1 */ \
	X(NUMBER_RANGE, number_range, NULL)         /* rules.min and/or rules.max */ \
	X(MIN_LENGTH, min_length, NULL)             /* rules.min_length, default 1 */ \
	X(REGEX, regex, NULL)                       /* rules.pattern, rules.message */ \
	X(FREE_TEXT, free_text, NULL) /* rules.description: guidance, not enforced */ \
	X(DATE, date, "date_format") \
	X(DATE_TODAY_OR_PAST, date_today_or_past, NULL) \
	X(DATE_FUTURE, date_future, NULL)

enum form_validation {
	VALID_NONE,
#define X(id, name, alias) VALID_##id,
	FORM_VALIDATIONS(X)
#undef X
	VALID_N
};

struct form_question {
	char *name;       /* snake_case key of form_data / form_status */
	char *label;      /* "label" or, in the write shape, "question" */
	enum form_type type;
	bool integer;     /* number_format "integer" */
	bool required;    /* default true */
	char *script;     /* exact words to ask, may be NULL */
	char *skip_message;
	char *advanced_instructions;
	char **options;   /* single/multi-select choices, n_options of them */
	int n_options;
	char *label_true; /* boolean_labels.true, NULL when not set */
	char *label_false;
	char **end_call_values;
	int n_end_call_values;
	char *branch_id;  /* NULL when always asked */
	int branch;       /* index into form.branches, -1 when always asked */

	enum form_validation validation;
	int digits;         /* phone_number, exact_num_digits */
	bool has_min, has_max;
	double min, max;    /* number_range */
	int min_length;     /* min_length */
	char *pattern;      /* regex (POSIX extended) */
	void *pattern_re;   /* pattern compiled once at load (a regex_t), NULL without one */
	char *message;      /* regex failure message */
	char *description;  /* free_text */

	bool allow_retries;   /* default true */
	bool until_answered;  /* default false */
	int max_retries;      /* re-asks after the first ask, default 2 */
	char **retry_messages;
	int n_retry_messages;
	bool exhausted_end_call; /* exhausted_action "end_call" (optional fields only) */
	bool exhausted_skip;     /* exhausted_action "skip" was written (for formlint) */
};

struct form_branch {
	char *id;
	char *field;      /* controlling question's name */
	int question;     /* its index, -1 if unknown */
	bool has_equals, equals;
	bool has_present, present; /* present wins when both are set */
};

struct form {
	char *title;
	char *language;
	char *context;        /* or "description" */
	char *instructions;   /* or "ai_instructions" */
	char *agent_persona;
	char *user_persona;
	bool agent_speaks_first;
	bool ask_questions_one_by_one;
	bool mute_user_while_agent_speaking;
	char *intro, *outro, *outro_incomplete;
	char *reask;          /* scripts.reask: said before a question asked again after the
	                         caller said nothing (no validation error to state); NULL:
	                         REPLY_SCRIPT_REASK (agent/stages/reply_script.h) */
	struct form_question *questions;
	int n_questions;
	struct form_branch *branches;
	int n_branches;
};

/* One problem FormBharo would refuse a save for. */
struct form_issue {
	char *field;   /* JSON path such as "questions[3].branch_id"; "" for the whole file */
	char *message; /* English sentence */
};

struct form_issues {
	struct form_issue *v;
	int n;
};

/* form_parse: load a form from JSON text.
 * Inputs: text (UTF-8, NUL-terminated, not kept). Outputs: on ERR_OK *out is a new form
 * (caller frees with form_free); *issues (caller frees with form_issues_free, may be NULL
 * to ignore) receives every problem found, also on failure. A form that has issues is not
 * returned. Errors: ERR_PARSE (malformed JSON: one issue, field "", message
 * "line L, column C: ..."), ERR_INVALID (refused config), ERR_NOMEM. */
enum err form_parse(const char *text, struct form **out, struct form_issues *issues);

/* form_load: form_parse on the contents of path. Errors as form_parse, plus ERR_IO
 * (one issue with field "" naming the file and the system error). Ownership as form_parse. */
enum err form_load(const char *path, struct form **out, struct form_issues *issues);

/* form_free: free f and everything it owns. form_free(NULL) does nothing. */
void form_free(struct form *f);

/* form_issues_free: free the issues' strings and array, and zero *is. NULL is fine. */
void form_issues_free(struct form_issues *is);

/* form_issues_add: append one issue (field and message copied) to is. Errors: ERR_NOMEM
 * (is unchanged). */
enum err form_issues_add(struct form_issues *is, const char *field, const char *message);

/* form_issues_json: the issues as FormBharo's refusal body,
 * {"validation_issues":[{"field":...,"message":...}]}. Output: a new NUL-terminated
 * string (caller frees with free()), NULL on ERR_NOMEM. */
char *form_issues_json(const struct form_issues *is);

/* form_find: index of the question named name, or -1. */
int form_find(const struct form *f, const char *name);

/* form_type_name: "string", "number", ... for t; a static string. */
const char *form_type_name(enum form_type t);

/* form_validation_name: the config's name for v ("phone_number", ...; "none" for
 * VALID_NONE or a value out of range); a static string. From FORM_VALIDATIONS. */
const char *form_validation_name(enum form_validation v);

/* How a question's answer is read as a string of digits: the one place that says which
 * fields are digit fields (validation.mdx: phone_number and exact_num_digits count
 * digits; a regex made of digits, such as ^[0-9]{6}$, is a code read as digits). */
enum form_digits {
	FORM_DIGITS_NO,      /* not a digit field */
	FORM_DIGITS_PHONE,   /* phone_number: q->digits digits, a +91/91/0 prefix dropped */
	FORM_DIGITS_EXACT,   /* exact_num_digits: exactly q->digits digits */
	FORM_DIGITS_PATTERN, /* regex whose pattern is digits ([0-9] or \d) */
};
/* form_digits: which of the above q is. Input: q (borrowed). Pure. */
enum form_digits form_digits(const struct form_question *q);
/* form_counts_digits: whether q's rule counts digits (phone_number, exact_num_digits):
 * its answer is the digits heard, not the type's parse. */
bool form_counts_digits(const struct form_question *q);

/* form_retry_limit: the re-asks q allows after its first ask (retries.mdx: max_retries,
 * default 2; allow_retries false: 0), -1 when it is asked until answered. Pure. */
int form_retry_limit(const struct form_question *q);

/* What a branch's controlling question holds, as its condition sees it. */
enum form_answer {
	FORM_ANSWER_EMPTY,   /* not asked yet, or asked and nothing captured yet */
	FORM_ANSWER_SKIPPED, /* not answered: skipped, or closed by its own branch */
	FORM_ANSWER_TRUE,    /* answered with a boolean true (or its true label) */
	FORM_ANSWER_FALSE,   /* answered with a boolean false (or its false label) */
	FORM_ANSWER_OTHER,   /* answered with something that is not a boolean */
};
/* form_branch_open: whether br's condition holds for the controller's answer a
 * (branching.mdx: `present` true = answered, false = not answered, and wins over
 * `equals`; `equals` compares a boolean answer). Output: 1 open, 0 closed, -1 not yet
 * decidable (a is FORM_ANSWER_EMPTY). Pure. */
int form_branch_open(const struct form_branch *br, enum form_answer a);

#endif
