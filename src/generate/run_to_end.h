#pragma once
// generate()'s loop, shared with a Session's turns.

#include "wgpt/decoder.h"
#include "wgpt/generate.h"

namespace wgpt::generate {

// Runs `run` until it stops. Prefills (a turn's text, and after a context shift the kept part)
// take the general forward pass; the steps after them take `fused` where given.
void run_to_end(const model::Model& model, Generation& run, model::Decoder* fused);

}  // namespace wgpt::generate
