/* callline: the JSON line a call ends with (`formdesk run --headless`, a headless live
 * call): the parts every such line shares. */
#ifndef FORMDESK_CALLLINE_H
#define FORMDESK_CALLLINE_H

#include <stdbool.h>
#include <cjson/cJSON.h>

/* callline_add_usage: add to o the call's "cost_usd", "latency_ms" {"stt", "extract",
 * "reply", "turns", "turn_max"}, "requests", "failed_requests" and "per_turn" (each caller
 * turn that reached the agent's first sound: {"turn", "latency": {"total_ms", "parts":
 * [{"name", "ms", "governed_by"}]}}, sessions/store/latency.h), read from usage (the
 * totals as engine_usage_json gives them; borrowed, a missing number reads as NaN, printed
 * null). Returns false when out of memory (o may then hold some of them). */
bool callline_add_usage(cJSON *o, const cJSON *usage);

#endif
