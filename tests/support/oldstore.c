#include "oldstore.h"

#include <stdio.h>
#include <unistd.h>

#include "dbq.h"

void oldstore_write(const char *path, int v)
{
	char name[64];

	snprintf(name, sizeof name, "tests/data/store_v%d_schema.sql", v);
	if (access(name, F_OK) == 0) {
		for (int k = 1; k <= v; k++) {
			snprintf(name, sizeof name, "tests/data/store_v%d_schema.sql", k);
			dbq_exec_file(path, name);
		}
	}
	snprintf(name, sizeof name, "tests/data/store_v%d.sql", v);
	dbq_exec_file(path, name);
}
