/* file: reading a whole file into memory, the one way every loader does it (form configs,
 * provider configs, key files, profiles, histories, CSV files). */
#ifndef FORMDESK_FILE_H
#define FORMDESK_FILE_H

#include <stddef.h>
#include "err.h"

/* file_read: the bytes of the file at path, read to its end (a pipe too), with a NUL
 * after them. Output: *out (caller frees), *len the bytes read without the NUL (len may be
 * NULL); neither is written on failure. Errors: ERR_IO (cannot open or read it; errno
 * says why), ERR_NOMEM. */
enum err file_read(const char *path, char **out, size_t *len);

#endif
