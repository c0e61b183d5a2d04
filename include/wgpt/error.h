#pragma once
// The one error type of wgpt: every failure the library detects — bad input, a WebGPU validation
// error, a WGSL compile error — reaches the caller as a wgpt::Error with a message that names what
// went wrong. The library never aborts the process on bad input.

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace wgpt {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// The outcome of an asynchronous call: a value or the error that replaced it.
template <class T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return std::holds_alternative<T>(state_); }
  // The value; throws the stored error when there is none.
  T& value() {
    if (!ok()) throw std::get<Error>(state_);
    return std::get<T>(state_);
  }
  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

}  // namespace wgpt
