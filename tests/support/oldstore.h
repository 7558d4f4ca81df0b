/* oldstore: databases as older formdesk versions wrote them, for the migration tests, from
 * tests/data: store_v1_schema.sql is version 1's tables, store_vN_schema.sql what version N
 * added (as its migration wrote it), and store_vN.sql version N's number and rows; a
 * version without a schema file has its whole file in store_vN.sql (a fresh file of that
 * version was written with complete CREATEs). */
#ifndef FORMDESK_TESTS_OLDSTORE_H
#define FORMDESK_TESTS_OLDSTORE_H

/* oldstore_write: write the database of schema version v at path (created when missing):
 * store_v1_schema.sql to store_vV_schema.sql in order when store_vV_schema.sql exists,
 * then store_vV.sql. Run from the top of the tree. A file that is missing or does not run
 * fails the running test. */
void oldstore_write(const char *path, int v);

#endif
