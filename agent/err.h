/* err: the project's error enum, for the rule layer and the layers above, which include
 * it by this name. It is defined in base/err.h, below both agent/ and audio/, so audio/
 * needs nothing from agent/. */
#ifndef FORMDESK_AGENT_ERR_H
#define FORMDESK_AGENT_ERR_H

#include "base/err.h"

#endif
