#include "wgpt/model.h"
// ops is below model: a kernel-level op cannot reach up into the model.
