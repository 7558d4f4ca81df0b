/* Placeholder until this module is written: every function fails with ERR_UNSUPPORTED. */
#include <stdio.h>
#include "commands.h"
int cmd_vad(int argc, char **argv) { (void)argc; fprintf(stderr, "formdesk %s: not available in this build yet\n", argv[0]); return 2; }
