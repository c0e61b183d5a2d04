// the council sees the public headers of generate and every layer below.
#include "wgpt/council.h"
#include "wgpt/generate.h"
#include "wgpt/ops.h"
#include "wgpt/sampling.h"
