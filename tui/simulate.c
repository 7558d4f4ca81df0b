/* Placeholder until this module is written: every function fails with ERR_UNSUPPORTED. */
#include <stdio.h>
#include "cli/commands.h"
int cmd_simulate(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "formdesk: the simulator is not available in this build yet\n"); return 2; }
