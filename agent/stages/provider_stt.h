/* provider_stt: the speech-to-text providers, one row each: the provider's settings and
 * the two functions that build its request and read its answer. Adding a provider is
 * one row and its two functions in provider_stt.c. The request is the one the provider
 * documents (see provider_stt.c, per row); stt_cloud.h runs them. */
#ifndef FORMDESK_PROVIDER_STT_H
#define FORMDESK_PROVIDER_STT_H

#include "provider.h"

/* provider_stt_table: the STT providers, *n of them (static), in the order they are
 * listed to the user. */
const struct provider_info *provider_stt_table(int *n);

#endif
