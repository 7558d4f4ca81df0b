/* ymd: calendar dates (proleptic Gregorian) for the rule layer. The rule layer never
 * reads the clock: "today" is always passed in as a struct ymd. */
#ifndef FORMDESK_YMD_H
#define FORMDESK_YMD_H

#include <stdbool.h>

struct ymd {
	int y, m, d; /* year, month 1-12, day 1-31 */
};

/* ymd_valid: true when d is a real calendar date (31 February is not). */
bool ymd_valid(struct ymd d);
/* ymd_cmp: <0, 0, >0 as a is before, equal to or after b. */
int ymd_cmp(struct ymd a, struct ymd b);
/* ymd_days_in_month: 28-31 for month m of year y (Gregorian leap rule); 0 for a bad month. */
int ymd_days_in_month(int y, int m);
/* ymd_add_days: d moved by n days (n may be negative). d must be valid. */
struct ymd ymd_add_days(struct ymd d, int n);
/* ymd_format: write "DD-MM-YYYY" (FormBharo's stored date form) into buf, which must hold
 * at least 11 bytes. Returns buf. */
char *ymd_format(struct ymd d, char *buf);
/* ymd_parse_stored: parse exactly "DD-MM-YYYY" into *out. Returns false (and leaves *out
 * alone) for any other text or an impossible date. */
bool ymd_parse_stored(const char *s, struct ymd *out);
/* ymd_parse_iso: parse "YYYY-MM-DD" (the --today option) into *out; false otherwise. */
bool ymd_parse_iso(const char *s, struct ymd *out);
/* ymd_today: the real local date. The only function here that reads the clock; callers
 * outside the rule layer use it to make the "today" input. */
struct ymd ymd_today(void);

#endif
