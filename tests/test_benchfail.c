/* test_benchfail: a failed request is not a result. `formdesk bench` (the real binary,
 * FORMDESK_BIN) runs the small bench fixture with EXTRACT on the "local" provider
 * (chat completions) against: nothing listening on a free 127.0.0.1 port, a server
 * answering 500, a server slower than the configured timeout, and a server answering
 * 500 then 200 with one retry allowed. Where requests fail: every failed item is stored
 * as an error with its cause (errors.csv), the run says so on stderr and exits 3 (the
 * documented status), results.csv and the charts have no row for the backend that
 * answered nothing, and the next run asks again exactly the errored items (the summary's
 * "run now" counts) and, once the server answers, exits 0 with the backend in results. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/mockserver.h"
#include "tests/support/testmain.h"

#define FORM "tests/data/bench_form.json"
#define CORPUS "tests/data/bench_corpus"

/* An EXTRACT answer that captures nothing: a result (a failed test), not an error. */
static const char answer[] =
	"{\"id\":\"c1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"local\","
	"\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
	"\"{\\\"ack\\\":\\\"ji\\\",\\\"fields\\\":[]}\"},\"finish_reason\":\"stop\"}],"
	"\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15}}";
static const char broke[] = "{\"error\":{\"message\":\"the server broke\",\"type\":\"server_error\"}}";

enum server { DEAD, FAIL500, SLOW, FLAKY, OK };

/* What the server does: the whole run, or (FLAKY) 500 to every other request. */
struct behaviour {
	enum server kind;
	int n;
};

static void handler(void *ud, const struct mock_request *req, struct mock_reply *out)
{
	struct behaviour *b = ud;
	(void)req;
	int i = __atomic_fetch_add(&b->n, 1, __ATOMIC_SEQ_CST);
	out->status = 200;
	out->body = answer;
	if (b->kind == FAIL500 || (b->kind == FLAKY && i % 2 == 0)) {
		out->status = 500;
		out->body = broke;
	} else if (b->kind == SLOW) {
		out->delay_ms = 1500;
	}
}

static int free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t n = sizeof a;
	int s = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(s >= 0);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&a, &n), 0);
	close(s);
	return ntohs(a.sin_port);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = calloc(1, 1 << 20);
	if (f) {
		size_t n = fread(s, 1, (1 << 20) - 1, f);
		s[n] = '\0';
		fclose(f);
	}
	return s;
}

static int lines_starting(const char *text, const char *prefix)
{
	int n = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += strncmp(p, prefix, strlen(prefix)) == 0;
	return n;
}

/* bench: run the binary once into dir; returns its exit status, *err its stderr. */
static int bench(const char *dir, const char *url, int retries, char **err)
{
	const char *bin = getenv("FORMDESK_BIN") ? getenv("FORMDESK_BIN") : "build/san/formdesk";
	char cmd[2048], conf[512], path[512];
	snprintf(conf, sizeof conf, "%s/conf.json", dir);
	FILE *f = fopen(conf, "w");
	assert_non_null(f);
	fprintf(f, "{\"providers\":{\"local\":{\"retries\":%d,\"timeout_ms\":500,\"stream\":false}}}",
		retries);
	fclose(f);
	snprintf(cmd, sizeof cmd,
		 "FORMDESK_CONFIG=%s LOCAL_BASE_URL=%s %s bench --form " FORM " --corpus " CORPUS
		 " --out %s/out --db %s/b.db --extract local --concurrency 1 2>%s/err.txt",
		 conf, url, bin, dir, dir, dir);
	int rc = system(cmd);
	snprintf(path, sizeof path, "%s/err.txt", dir);
	*err = slurp(path);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static char *out_file(const char *dir, const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/out/%s", dir, name);
	return slurp(path);
}

struct row {
	const char *what;
	enum server first;  /* the server in the first run */
	int retries;
	int rc1;            /* the first run's exit status */
	const char *cause;  /* in errors.csv after the first run; NULL: no errors */
};

static const struct row rows[] = {
	{"nothing listening", DEAD, 0, 3, "connect"},
	{"HTTP 500", FAIL500, 0, 3, "500"},
	{"slower than the timeout", SLOW, 0, 3, "timed out"},
	{"500 then 200, one retry", FLAKY, 1, 0, NULL},
};

static void failed_requests(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct row *r = &rows[i];
		char dir[] = "/tmp/test_benchfail.XXXXXX", url[96], *err = NULL;
		struct behaviour beh = {r->first, 0};
		struct mockserver *ms = NULL;
		assert_non_null(mkdtemp(dir));
		if (r->first == DEAD) {
			snprintf(url, sizeof url, "http://127.0.0.1:%d/v1", free_port());
		} else {
			assert_non_null(ms = mockserver_start());
			mockserver_set_handler(ms, handler, &beh);
			snprintf(url, sizeof url, "%s/v1", mockserver_url(ms));
		}
		int rc = bench(dir, url, r->retries, &err);
		char *res = out_file(dir, "results.csv"), *errs = out_file(dir, "errors.csv");
		char *ex = out_file(dir, "results-extract.csv"), *md = out_file(dir, "report.md");
		print_message("-- %s: exit %d\n%s", r->what, rc, err);
		assert_int_equal(rc, r->rc1);
		if (r->cause) {
			/* loud on stderr, errors stored with their cause, nothing in results */
			assert_non_null(strstr(err, "requests failed"));
			assert_non_null(strstr(err, "asked again on the next run"));
			assert_int_equal(lines_starting(errs, "extract,local,"), 4);
			assert_int_equal(lines_starting(errs, "call,reference+local+script,"), 2);
			assert_non_null(strstr(errs, r->cause));
			assert_int_equal(lines_starting(res, "extract,"), 0);
			assert_int_equal(lines_starting(res, "call,"), 0);
			assert_null(strstr(ex, "local"));
			assert_non_null(strstr(md, "4 EXTRACT requests failed"));
			/* the next run: exactly the errored items again; once the server answers,
			 * they are results */
			free(err);
			beh.kind = OK;
			assert_int_equal(bench(dir, url, 0, &err), ms ? 0 : 3);
			assert_non_null(strstr(err, "run now: 0, 4, 0, 2"));
			if (ms) {
				free(res);
				free(errs);
				res = out_file(dir, "results.csv");
				errs = out_file(dir, "errors.csv");
				assert_int_equal(lines_starting(res, "extract,extract:local,"), 1);
				assert_int_equal(lines_starting(res, "call,call:reference+local+script,"), 1);
				assert_int_equal(lines_starting(errs, "extract,"), 0);
			}
		} else {
			assert_null(strstr(err, "requests failed"));
			assert_int_equal(lines_starting(errs, "extract,"), 0);
			assert_int_equal(lines_starting(res, "extract,extract:local,"), 1);
		}
		free(err);
		free(res);
		free(errs);
		free(ex);
		free(md);
		mockserver_stop(ms);
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
	}
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(failed_requests))
