/* libfuzzer: the libFuzzer entry for one target, chosen at build time by FUZZ_FN
 * (e.g. -DFUZZ_FN=fuzz_form); `make fuzz` builds one program per target. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return FUZZ_FN(data, size);
}
