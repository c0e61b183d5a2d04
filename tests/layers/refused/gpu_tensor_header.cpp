#include "wgpt/tensor.h"
// gpu is the lowest layer above base: it knows nothing of tensors.
