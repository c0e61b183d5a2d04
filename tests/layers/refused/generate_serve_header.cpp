#include "wgpt/serve.h"
// serve is above generate: generate cannot see it.
