#include "ymd.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int ymd_days_in_month(int y, int m)
{
	static const int dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (m < 1 || m > 12)
		return 0;
	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return dim[m - 1];
}

bool ymd_valid(struct ymd d)
{
	return d.y >= 1 && d.y <= 9999 && d.m >= 1 && d.m <= 12 && d.d >= 1 &&
	       d.d <= ymd_days_in_month(d.y, d.m);
}

int ymd_cmp(struct ymd a, struct ymd b)
{
	if (a.y != b.y)
		return a.y < b.y ? -1 : 1;
	if (a.m != b.m)
		return a.m < b.m ? -1 : 1;
	if (a.d != b.d)
		return a.d < b.d ? -1 : 1;
	return 0;
}

/* Days since 0000-03-01 (the civil-from-days algorithm of H. Hinnant). */
static long to_days(struct ymd d)
{
	long y = d.y - (d.m <= 2);
	long era = (y >= 0 ? y : y - 399) / 400;
	long yoe = y - era * 400;
	long doy = (153 * (d.m + (d.m > 2 ? -3 : 9)) + 2) / 5 + d.d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe;
}

static struct ymd from_days(long z)
{
	long era = (z >= 0 ? z : z - 146096) / 146097;
	long doe = z - era * 146097;
	long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long mp = (5 * doy + 2) / 153;
	struct ymd r;
	r.d = (int)(doy - (153 * mp + 2) / 5 + 1);
	r.m = (int)(mp < 10 ? mp + 3 : mp - 9);
	r.y = (int)(yoe + era * 400 + (r.m <= 2));
	return r;
}

struct ymd ymd_add_days(struct ymd d, int n)
{
	return from_days(to_days(d) + n);
}

char *ymd_format(struct ymd d, char *buf)
{
	snprintf(buf, 11, "%02u-%02u-%04u", (unsigned)d.d % 100u, (unsigned)d.m % 100u,
		 (unsigned)d.y % 10000u);
	return buf;
}

/* parse: s written as fmt ("DD-DD-DDDD" day first, "DDDD-DD-DD" year first; D a digit,
 * the rest as it is) into *out when it is a real calendar date; false otherwise. */
static bool parse(const char *s, const char *fmt, struct ymd *out)
{
	size_t len = strlen(fmt);
	bool day_first = fmt[2] == '-';
	struct ymd r;

	if (!s || strlen(s) != len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (fmt[i] == 'D' ? (s[i] < '0' || s[i] > '9') : s[i] != fmt[i])
			return false;
	if (sscanf(s, day_first ? "%2d-%2d-%4d" : "%4d-%2d-%2d", day_first ? &r.d : &r.y, &r.m,
		   day_first ? &r.y : &r.d) != 3 ||
	    !ymd_valid(r))
		return false;
	*out = r;
	return true;
}

bool ymd_parse_stored(const char *s, struct ymd *out)
{
	return parse(s, "DD-DD-DDDD", out);
}

bool ymd_parse_iso(const char *s, struct ymd *out)
{
	return parse(s, "DDDD-DD-DD", out);
}

struct ymd ymd_today(void)
{
	time_t t = time(NULL);
	struct tm tm;
	localtime_r(&t, &tm);
	struct ymd r = {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday};
	return r;
}
