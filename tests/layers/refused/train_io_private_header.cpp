#include "io/byte_sink.h"
// Another layer's private header: train writes files through wgpt/io.h alone.
