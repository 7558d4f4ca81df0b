#include "envclear.h"

#include <stdlib.h>

void envclear(const char *const *names)
{
	for (; *names; names++)
		unsetenv(*names);
}
