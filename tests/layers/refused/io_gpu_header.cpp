#include "wgpt/gpu.h"
// io depends on the standard library and its parsers only.
