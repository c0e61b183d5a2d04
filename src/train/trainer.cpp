// The training loop: batches, steps, evaluations, samples and checkpoints.
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <span>

#include "train/loss_curve.h"
#include "train/metrics_log.h"
#include "wgpt/train.h"

namespace wgpt::train {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The per-position losses and the squared gradient norm of a step, read back together: one
// round trip per step.
std::pair<double, double> read_step(const Tensor& token_losses, const Tensor& sum_of_squares) {
  std::vector<float> losses, norm;
  if (token_losses.is_gpu()) {
    auto regions = token_losses.context()->readback_many(
        {gpu::BufferRange(token_losses.buffer(), token_losses.offset() * sizeof(float),
                          token_losses.numel() * sizeof(float)),
         gpu::BufferRange(sum_of_squares.buffer(), sum_of_squares.offset() * sizeof(float),
                          sizeof(float))});
    losses.resize(token_losses.numel());
    std::memcpy(losses.data(), regions[0].data(), regions[0].size());
    norm.resize(1);
    std::memcpy(norm.data(), regions[1].data(), sizeof(float));
  } else {
    losses = token_losses.to_floats();
    norm = sum_of_squares.to_floats();
  }
  double sum = 0.0;
  for (float loss : losses) sum += loss;
  return {sum / static_cast<double>(losses.size()), std::sqrt(static_cast<double>(norm[0]))};
}

void validate(const model::Model& model, const TokenSplit& data, const TrainOptions& o) {
  if (o.steps == 0 || o.batch == 0 || o.seq_len == 0) {
    throw Error("steps, batch and sequence length must be positive");
  }
  if (o.seq_len > model.config().n_ctx) {
    throw Error("a context of " + std::to_string(o.seq_len) + " exceeds the model's " +
                std::to_string(model.config().n_ctx) + " positions");
  }
  if (data.train.size() < o.seq_len + 1 || data.validation.size() < o.seq_len + 1) {
    throw Error("the text is too short for a context of " + std::to_string(o.seq_len));
  }
  if (o.out_dir.empty()) throw Error("training needs an output directory");
}

class Loop {
 public:
  Loop(model::Model& model, const TokenSplit& data, const TrainOptions& options,
       const TrainCallbacks& callbacks)
      : model_(model),
        data_(data),
        o_(options),
        cb_(callbacks),
        lock_(created(options.out_dir)),
        params_(parameters(model)),
        optimizer_(params_, options.adamw),
        state_(start_state()),
        log_(o_.out_dir / "metrics.jsonl",
             o_.resume ? std::optional<size_t>(state_.step) : std::nullopt),
        sampler_(state_.sampler_state) {}

  TrainResult run() {
    Schedule schedule = o_.schedule;
    schedule.total_steps = o_.steps;
    const auto start = Clock::now();
    const double elapsed_before = state_.elapsed_s;
    const size_t first_step = state_.step;
    TrainResult result;
    while (state_.step < o_.steps) {
      const float lr = schedule.at(state_.step);
      const Batch batch = sampler_.next(data_.train, o_.batch, o_.seq_len);
      std::optional<gpu::Scope> scope;  // the step's forward, backward and update: one recording
      if (model_.on_gpu()) scope.emplace(*model_.context(), gpu::Submits::in_parts);
      const LossAndGrads step =
          loss_and_grads(model_, batch, {o_.dropout, o_.seed, static_cast<uint64_t>(state_.step)});
      const Tensor sum_of_squares = optimizer_.step(params_, step.grads, lr, step.grad_scale);
      scope.reset();
      const auto [loss, scaled_norm] = read_step(step.token_losses, sum_of_squares);
      const double grad_norm = scaled_norm / step.grad_scale;
      if (!std::isfinite(loss) || !std::isfinite(grad_norm)) {
        throw Error("step " + std::to_string(state_.step + 1) + ": the loss is " +
                    std::to_string(loss) + " and the gradient norm " + std::to_string(grad_norm) +
                    "; stopping. The last checkpoint in " + o_.out_dir.string() +
                    (saved_step_ ? " (step " + std::to_string(*saved_step_) + ")" : "") +
                    " is untouched (try a lower --lr, or --clip)");
      }
      ++state_.step;
      state_.sampler_state = sampler_.state();
      const double run_s = seconds_since(start);
      state_.elapsed_s = elapsed_before + run_s;
      const double steps_this_run = static_cast<double>(state_.step - first_step);
      StepReport report{state_.step,
                        o_.steps,
                        loss,
                        grad_norm,
                        lr,
                        steps_this_run * static_cast<double>(o_.batch * o_.seq_len) / run_s,
                        state_.elapsed_s,
                        run_s / steps_this_run * static_cast<double>(o_.steps - state_.step)};
      log_.append({{"step", report.step},
                   {"loss", loss},
                   {"lr", lr},
                   {"grad_norm", grad_norm},
                   {"tokens_per_s", report.tokens_per_s},
                   {"elapsed_s", report.elapsed_s}});
      if (cb_.on_step) cb_.on_step(report);
      result.last_loss = loss;
      const bool last = state_.step == o_.steps;
      if (due(o_.eval_every) || last) result.validation_loss = evaluate_now();
      if (o_.sample_every && state_.step % o_.sample_every == 0 && cb_.sample) {
        log_.append({{"step", state_.step}, {"sample", cb_.sample(state_.step, model_)}});
      }
      if (due(o_.checkpoint_every) || last) checkpoint();
    }
    if (first_step == o_.steps) {
      note("the checkpoint in " + o_.out_dir.string() + " has already done " +
           std::to_string(o_.steps) + " steps; nothing to train");
      result.validation_loss = evaluate_now();
    }
    result.steps = state_.step;
    result.elapsed_s = state_.elapsed_s;
    return result;
  }

 private:
  static const std::filesystem::path& created(const std::filesystem::path& dir) {
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (!std::filesystem::is_directory(dir, error)) {
      throw Error("cannot train into " + dir.string() + ": it is not a directory");
    }
    return dir;
  }

  // With the directory claimed (lock_): first what a killed run left, then the checkpoint.
  TrainState start_state() {
    if (const size_t removed = io::tidy_directory(o_.out_dir)) {
      note("removed " + std::to_string(removed) + " temporary file(s) a killed run left in " +
           o_.out_dir.string());
    }
    if (!o_.resume) return {0, o_.seed, 0};
    TrainState state = load_train_state(o_.out_dir, model_, optimizer_);
    saved_step_ = state.step;
    note("resuming " + o_.out_dir.string() + " at step " + std::to_string(state.step));
    return state;
  }

  bool due(size_t every) const { return every != 0 && state_.step % every == 0; }

  void note(const std::string& message) const {
    if (cb_.on_note) cb_.on_note(message);
  }

  double evaluate_now() {
    const double loss = evaluate(model_, data_.validation, o_.batch, o_.seq_len, o_.eval_windows);
    log_.append({{"step", state_.step}, {"val_loss", loss}});
    if (cb_.on_eval) cb_.on_eval(state_.step, loss);
    return loss;
  }

  // One update: a reader (or a resumed run) finds every file of one step, whatever moment a
  // kill or a full disk interrupts the writing.
  void checkpoint() {
    io::DirectoryUpdate update(o_.out_dir);
    model_.save(update);
    for (const auto& [name, content] : o_.model_files) update.add_text(name, content);
    update.add_text("loss.svg", loss_curve_svg(log_.train_losses(), log_.validation_losses()));
    save_train_state(update, model_, optimizer_, state_);
    update.commit();
    saved_step_ = state_.step;
    note("checkpoint: step " + std::to_string(state_.step) + " in " + o_.out_dir.string());
  }

  model::Model& model_;
  const TokenSplit& data_;
  const TrainOptions& o_;
  const TrainCallbacks& cb_;
  io::OutputLock lock_;
  std::vector<Parameter> params_;
  AdamW optimizer_;
  std::optional<size_t> saved_step_;
  TrainState state_;
  MetricsLog log_;
  BatchSampler sampler_;
};

}  // namespace

TrainResult run(model::Model& model, const TokenSplit& data, const TrainOptions& options,
                const TrainCallbacks& callbacks) {
  validate(model, data, options);
  return Loop(model, data, options, callbacks).run();
}

}  // namespace wgpt::train
