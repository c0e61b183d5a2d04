#include "wgpt/council.h"
// the council is above generate: generate cannot see it.
