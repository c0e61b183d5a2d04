#include "wgpt/generate.h"
// model is below generate.
