// The council itself: which experts can be merged, and their caches.
#include "wgpt/council.h"

#include <algorithm>
#include <cmath>

namespace wgpt::council {
namespace {

// Why `expert` cannot join a council with `first`, or empty when it can.
std::string mismatch(const Expert& first, const Expert& expert) {
  const model::Config &a = first.model.config(), &b = expert.model.config();
  auto differs = [&](const char* what, size_t x, size_t y) {
    return what + std::string(" ") + std::to_string(y) + " where " + first.name + " has " +
           std::to_string(x);
  };
  if (a.n_embd != b.n_embd) return differs("a width (n_embd) of", a.n_embd, b.n_embd);
  if (a.vocab_size != b.vocab_size) return differs("a vocabulary of", a.vocab_size, b.vocab_size);
  if (first.model.context() != expert.model.context()) return "another device than " + first.name;
  // The same digest of the values as loaded (the same q4 codes give the same floats): hidden
  // states only share a basis when the tables are one and the same.
  const bool same =
      first.model.weights().token_table_digest == expert.model.weights().token_table_digest;
  if (!same) return "a token table (wte) that differs from " + first.name + "'s";
  return {};
}

}  // namespace

Council::Council(std::vector<Expert> experts, float beta) : experts_(std::move(experts)) {
  if (experts_.empty()) throw Error("a council needs at least one expert");
  for (const Expert& expert : experts_) {
    if (std::string why = mismatch(experts_.front(), expert); !why.empty()) {
      throw Error("expert " + expert.name + " cannot join the council: it has " + why);
    }
  }
  config_ = experts_.front().model.config();
  for (const Expert& expert : experts_) {
    config_.n_ctx = std::min(config_.n_ctx, expert.model.config().n_ctx);
  }
  set_beta(beta);
  reset();
}

void Council::set_beta(float beta) {
  if (!(beta >= 0.0f && std::isfinite(beta))) {
    throw Error("the router's beta must be finite and ≥ 0, got " + std::to_string(beta));
  }
  beta_ = beta;
}

void Council::reset() {
  caches_.clear();
  text_.clear();
  for (const Expert& expert : experts_) caches_.push_back(expert.model.new_cache());
}

}  // namespace wgpt::council
