#include "wgpt/io.h"
// tokenizer depends on the standard library and its parsers only.
