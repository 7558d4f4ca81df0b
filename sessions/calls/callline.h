/* callline: the JSON line a call ends with (`formdesk run --headless`, a headless live
 * call): the parts every such line shares. */
#ifndef FORMDESK_CALLLINE_H
#define FORMDESK_CALLLINE_H

#include <stdbool.h>
#include <cjson/cJSON.h>

#include "agent/rules/decision.h"

/* callline_add_usage: add to o the call's "cost_usd", "latency_ms" {"stt", "extract",
 * "reply", "turns", "turn_max"}, "requests", "failed_requests" and "per_turn" (each caller
 * turn that reached the agent's first sound: {"turn", "latency": {"total_ms", "parts":
 * [{"name", "ms", "governed_by"}]}}, sessions/store/latency.h), read from usage (the
 * totals as engine_usage_json gives them; borrowed, a missing number reads as NaN, printed
 * null). Returns false when out of memory (o may then hold some of them). */
bool callline_add_usage(cJSON *o, const cJSON *usage);

/* callline_add_outcome: add to o how the call ended: "status" (FormBharo's word for
 * status), "reason" (why it ended), "form_data" and "form_status" (copies of the flow's
 * objects, which stay the caller's), "turns". Returns false when out of memory or when
 * reason, form_data or form_status is NULL (o may then hold some of them). */
bool callline_add_outcome(cJSON *o, enum call_status status, const char *reason,
			  const cJSON *form_data, const cJSON *form_status, int turns);

/* callline_print: o as one line of unformatted JSON on stdout, flushed. Returns false when
 * out of memory (nothing printed). o stays the caller's. */
bool callline_print(const cJSON *o);

#endif
