// train sees its own private headers and the public headers of every layer below it.
#include "train/metrics_log.h"
#include "wgpt/gpu.h"
#include "wgpt/io.h"
#include "wgpt/model.h"
#include "wgpt/tokenizer.h"
#include "wgpt/train.h"
