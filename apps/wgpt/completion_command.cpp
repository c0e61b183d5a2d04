// `wgpt completion bash`: a bash completion script written from the tool's own command tree, so it
// names every subcommand and option there is and never goes stale.
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "joined.h"

namespace wgpt::cli {
namespace {

// The values an option's validator allows, as CLI11 describes them: "TEXT:{auto,gpu,cpu}", or
// "{error->0,skip->2}" for a mapping. Empty when the option takes any value.
std::vector<std::string> choices_of(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  const size_t open = type.find('{');
  const size_t close = type.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::vector<std::string> choices;
  for (std::string item : CLI::detail::split(type.substr(open + 1, close - open - 1), ',')) {
    item = item.substr(0, item.find("->"));
    if (!item.empty()) choices.push_back(item);
  }
  return choices;
}

// One `case` per command path ("wgpt", "wgpt data", "wgpt data brown"): its subcommands and
// options, and for each option that takes a value, what completes it (its choices, else files).
void write_cases(const CLI::App& app, const std::string& path, std::string& commands,
                 std::string& values) {
  std::vector<std::string> subcommands, options;
  for (const CLI::App* sub : app.get_subcommands({})) subcommands.push_back(sub->get_name());
  for (const CLI::Option* option : app.get_options()) {
    std::vector<std::string> names;
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    if (names.empty()) continue;  // a positional argument
    options.insert(options.end(), names.begin(), names.end());
    if (option->get_items_expected_max() == 0) continue;  // a flag
    const std::vector<std::string> choices = choices_of(*option);
    std::string patterns;
    for (const std::string& name : names) {
      patterns += (patterns.empty() ? "" : "|") + ("\"" + path + ":" + name + "\"");
    }
    values +=
        "    " + patterns + ") " +
        (choices.empty() ? "COMPREPLY=($(compgen -f -- \"$cur\"))"
                         : "COMPREPLY=($(compgen -W \"" + joined(choices) + "\" -- \"$cur\"))") +
        "; return ;;\n";
  }
  commands += "    \"" + path + "\") subcommands=\"" + joined(subcommands) + "\"; options=\"" +
              joined(options) + "\" ;;\n";
  for (const CLI::App* sub : app.get_subcommands({})) {
    write_cases(*sub, path + " " + sub->get_name(), commands, values);
  }
}

std::string bash_script(const CLI::App& app) {
  std::string commands, values;
  write_cases(app, "wgpt", commands, values);
  return R"(# bash completion for wgpt, written by `wgpt completion bash` from the tool's own commands.
# bash: source <(wgpt completion bash)
# zsh:  autoload -U bashcompinit && bashcompinit && source <(wgpt completion bash)
_wgpt() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local path=wgpt subcommands options i
  # The command path so far: the words that name a subcommand of the path before them.
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "$path" in
)" + commands +
         R"(    esac
    [[ " $subcommands " == *" ${COMP_WORDS[i]} "* ]] && path="$path ${COMP_WORDS[i]}"
  done
  case "$path" in
)" + commands +
         R"(  esac
  case "$path:$prev" in
)" + values +
         R"(  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
  elif [ -n "$subcommands" ]; then
    COMPREPLY=($(compgen -W "$subcommands" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _wgpt wgpt
)";
}

}  // namespace

void add_completion_command(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand(
      "completion",
      "Print a shell completion script: `source <(wgpt completion bash)`; in zsh, run "
      "`autoload -U bashcompinit && bashcompinit` first");
  sub->add_option("shell", *shell, "The shell (bash; zsh reads it through bashcompinit)")
      ->check(CLI::IsMember({"bash"}))
      ->required();
  sub->callback([&app] { std::fputs(bash_script(app).c_str(), stdout); });
}

}  // namespace wgpt::cli
