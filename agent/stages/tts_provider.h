/* tts_provider: the hosted text-to-speech voices, one row each (as provider_stt.h does for
 * speech-to-text): the provider's settings (base URL and its environment variable, key
 * variable, default model, voice and sample rate, how the audio comes back) and the
 * function that builds its request. Adding a provider is one row and its request
 * function in tts_provider.c. Each request is the one the provider documents (cited per
 * row there); tts_cloud.h runs them and decodes the audio. Their settings are the config
 * file's "tts" entries (provider.h). */
#ifndef FORMDESK_TTS_PROVIDER_H
#define FORMDESK_TTS_PROVIDER_H

#include "provider.h"

/* tts_provider_table: the TTS providers, *n of them (static), in the order they are
 * listed to the user. */
const struct provider_info *tts_provider_table(int *n);

#endif
