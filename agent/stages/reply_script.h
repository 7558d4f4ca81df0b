/* reply_script: the offline REPLY backend "script" (the default): phrases the rule
 * layer's decision from the form's own words: the question's `script` (or its label),
 * `retry_messages` with the validation error, `skip_message`, and scripts.intro / outro /
 * outro_incomplete. */
#ifndef FORMDESK_REPLY_SCRIPT_H
#define FORMDESK_REPLY_SCRIPT_H

#include "backend.h"
#include "agent/rules/decision.h"

/* The words said before a question asked again after the caller said nothing, when the
 * form's scripts have no "reask": a neutral line, no validation error (a retry message
 * may state one: "months must be between one and ten" after silence is wrong). */
#define REPLY_SCRIPT_REASK "माफ़ कीजिए, मुझे आपकी आवाज़ नहीं आई।"

/* The backend's ops (backend.h), no ctx; its call is reply_script_reply. */
extern const struct backend_ops reply_script_ops;

/* reply_script_reply: REPLY on req (struct backend_ops call). ctx is unused (NULL). The
 * decision is read with decision_from_json (a record without "turn" reads as the opening,
 * turn 0). A re-ask after silence (the decision's "silence") is the form's scripts.reask
 * (or REPLY_SCRIPT_REASK) and the question's script, never a retry message.
 * Output: *text new string (caller frees). Errors: ERR_INVALID (decision record lacks a
 * tool_call, or it is not one decision.h describes, or it asks no question of the form),
 * ERR_NOMEM. */
enum err reply_script_reply(void *ctx, const struct reply_request *req, char **text);

#endif
