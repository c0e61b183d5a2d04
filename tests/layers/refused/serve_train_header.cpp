#include "wgpt/train.h"
// serve stands on generate; training is beside it, not below.
