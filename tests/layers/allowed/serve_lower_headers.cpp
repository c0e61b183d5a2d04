// serve sees its own private headers and the public headers of generate and every layer below.
#include "serve/scheduler.h"
#include "wgpt/decoder.h"
#include "wgpt/generate.h"
#include "wgpt/serve.h"
#include "wgpt/tokenizer.h"
