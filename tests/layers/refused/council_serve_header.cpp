#include "wgpt/serve.h"
// the council stands on generate; serve is beside it, not below.
