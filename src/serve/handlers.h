#pragma once
// The endpoints. Each validates its request, hands model work to the scheduler and answers;
// errors are thrown as ApiError and answered by the caller (server.cpp).

#include <httplib.h>

#include "serve/server_state.h"

namespace wgpt::serve {

// POST /v1/completions (chat = false) and /v1/chat/completions (chat = true).
void handle_generation(ServerState& state, const httplib::Request& request,
                       httplib::Response& response, bool chat);
// POST /v1/score: the surprisal of every token of a prompt.
void handle_score(ServerState& state, const httplib::Request& request, httplib::Response& response);
// POST /tokenize, POST /detokenize.
void handle_tokenize(ServerState& state, const httplib::Request& request,
                     httplib::Response& response);
void handle_detokenize(ServerState& state, const httplib::Request& request,
                       httplib::Response& response);
// GET /v1/models, GET /health, GET /metrics.
void handle_models(ServerState& state, httplib::Response& response);
void handle_health(ServerState& state, httplib::Response& response);
void handle_metrics(ServerState& state, httplib::Response& response);

// The prompt's surprisal with `top` alternatives per token, computed on the model's thread
// (a prompt of one token: that token, unscored).
model::Surprisal score_on_model_thread(ServerState& state, const std::vector<uint32_t>& ids,
                                       size_t top);

}  // namespace wgpt::serve
