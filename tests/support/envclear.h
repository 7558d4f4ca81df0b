/* envclear: the provider variables a backend test unsets, so that what a developer's shell
 * exports (keys, base URLs, a config file) never reaches the test's backends. */
#ifndef FORMDESK_TESTS_ENVCLEAR_H
#define FORMDESK_TESTS_ENVCLEAR_H

/* envclear: unsetenv each of names, a list ended by NULL. */
void envclear(const char *const *names);

#endif
