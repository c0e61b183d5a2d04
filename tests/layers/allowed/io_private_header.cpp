// io sees its own private headers.
#include "io/byte_sink.h"
#include "wgpt/io.h"
