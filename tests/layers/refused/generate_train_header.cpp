#include "wgpt/train.h"
// generate and train are side by side: neither sees the other.
