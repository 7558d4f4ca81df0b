/* formdesk providers: every model, speech-to-text and text-to-speech provider formdesk
 * can call, with the model and base URL it would use and whether its key is set. Keys
 * are never printed: only the name of the environment variable and "set" or "missing".
 * A server that needs no key (a local one) is "configured, not reached" and not counted
 * ready: --probe asks its BASE/models (2 s, no retry) and says whether it answered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/stages/http.h"
#include "agent/stages/provider.h"
#include "commands.h"
#include "opts.h"

/* probe: whether the server at base answers GET base/models; why says what happened. */
static bool probe(const char *base, char *why, size_t n)
{
	char url[600];
	struct http_req *r = NULL;
	struct http_result *res = NULL;
	bool ok = false;
	snprintf(url, sizeof url, "%s/models", base);
	if (http_req_new("GET", url, &r) != ERR_OK) {
		snprintf(why, n, "unreachable: out of memory");
		return false;
	}
	http_req_limits(r, 2000, 0, 0);
	if (http_perform(r, &res) != ERR_OK || !res || res->err != ERR_OK) {
		snprintf(why, n, "unreachable: %s", res && res->error[0] ? res->error : "no answer");
	} else {
		ok = true;
		snprintf(why, n, "reachable (HTTP %ld)", res->status);
	}
	http_result_free(res);
	return ok;
}

int cmd_providers(int argc, char **argv)
{
	struct providers_opts o = {0};
	enum opts_result pr = opts_parse(&cmd_providers_opts, argc, argv, &o, NULL, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	const char *config = o.config;
	char why[300];
	if (provider_config_load(config, why, sizeof(why)) != ERR_OK) {
		fprintf(stderr, "formdesk providers: %s\n", why);
		return 2;
	}
	const char *path = provider_config_path();
	printf("config file: %s\n", path ? path : "none (formdesk.json, $FORMDESK_CONFIG or --config FILE)");
	printf("offline (default): stt reference, extract rules, reply script, tts espeak\n\n");
	printf("%-4s %-11s %-26s %-10s %-48s %s\n", "kind", "provider", "model", "config", "base URL", "key");
	int n = 0, ready = 0;
	for (int kind = PROVIDER_LLM; kind <= PROVIDER_TTS; kind++) {
		int nk;
		const struct provider_info *t = provider_table(kind, &nk);
		for (int i = 0; i < nk; i++, n++) {
			char model[128], base[512], key[400], reach[300];
			provider_settings(&t[i], model, sizeof(model), base, sizeof(base));
			const char *kv = t[i].key_env ? getenv(t[i].key_env) : NULL;
			bool ok = t[i].key_env && kv && *kv;
			if (!t[i].key_env && o.probe) {
				ok = probe(base, reach, sizeof reach);
				snprintf(key, sizeof(key), "none needed; %s", reach);
			} else if (!t[i].key_env)
				snprintf(key, sizeof(key), "none needed; configured, not reached (--probe)");
			else
				snprintf(key, sizeof(key), "%s %s", t[i].key_env, kv && *kv ? "set" : "missing");
			ready += ok;
			static const char *const kinds[] = {"llm", "stt", "tts"};
			printf("%-4s %-11s %-26s %-10s %-48s %s\n", kinds[t[i].kind], t[i].name,
			       model[0] ? model : "(server's)", provider_info_configured(&t[i]) ? "yes" : "-",
			       base, key);
		}
	}
	printf("\n%d of %d providers ready%s; use them as --stt, --extract, --reply, --tts PROVIDER[:MODEL]\n",
	       ready, n, o.probe ? "" : " (a server that needs no key counts once --probe reaches it)");
	provider_config_free();
	return 0;
}
