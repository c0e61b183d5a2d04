// Sharded safetensors: HF's model.safetensors.index.json names, for every tensor, the shard file
// beside it that holds it: {"metadata": {...}, "weight_map": {"wte.weight": "model-00001-of-00002
// .safetensors", ...}}. Each shard is read like any safetensors file, and the index and the
// shards must agree exactly.

#include <nlohmann/json.hpp>
#include <set>

#include "io/file_bytes.h"
#include "io/formats.h"

namespace wgpt::io {
namespace {

using nlohmann::json;

// A shard must be a plain file name beside the index: no folders, nothing that climbs out.
bool is_plain_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find_first_of("/\\") == std::string::npos && name.find(':') == std::string::npos;
}

// The weight map: tensor name → shard file, and the shards in order of first mention.
struct WeightMap {
  std::map<std::string, std::string> shard_of;
  std::vector<std::string> shards;
};

WeightMap read_weight_map(const std::filesystem::path& index) {
  const auto file = FileBytes::open(index);
  const auto bytes = file->bytes();
  const std::string where = index.string();
  json root;
  try {
    root = json::parse(bytes.begin(), bytes.end());
  } catch (const json::exception& e) {
    throw Error(where + " is not valid JSON: " + e.what());
  }
  if (!root.is_object() || !root.contains("weight_map") || !root["weight_map"].is_object()) {
    throw Error(where + " has no \"weight_map\" object");
  }
  WeightMap map;
  for (const auto& [tensor, shard] : root["weight_map"].items()) {
    if (!shard.is_string() || !is_plain_file_name(shard.get<std::string>())) {
      throw Error(where + ": tensor '" + tensor + "' is mapped to " + shard.dump() +
                  ", not a file name beside the index");
    }
    const auto& name = shard.get_ref<const std::string&>();
    if (std::find(map.shards.begin(), map.shards.end(), name) == map.shards.end()) {
      map.shards.push_back(name);
    }
    map.shard_of.emplace(tensor, name);
  }
  if (map.shard_of.empty()) throw Error(where + ": the weight map is empty");
  return map;
}

}  // namespace

TensorFile load_safetensors_index(const std::filesystem::path& index) {
  const WeightMap map = read_weight_map(index);
  const std::filesystem::path folder = index.parent_path();
  TensorFile all;
  std::set<std::string> found;
  for (const std::string& shard : map.shards) {
    TensorFile part = load_safetensors(folder / shard);
    for (TensorData& tensor : part.tensors) {
      const auto it = map.shard_of.find(tensor.name());
      if (it == map.shard_of.end() || it->second != shard) {
        throw Error((folder / shard).string() + " holds tensor '" + tensor.name() + "', which " +
                    index.string() +
                    (it == map.shard_of.end() ? " does not list" : " places in " + it->second));
      }
      found.insert(tensor.name());
      all.tensors.push_back(std::move(tensor));
    }
    all.metadata.merge(part.metadata);
  }
  for (const auto& [tensor, shard] : map.shard_of) {
    if (!found.count(tensor)) {
      throw Error(index.string() + " places tensor '" + tensor + "' in " + shard +
                  ", which does not hold it");
    }
  }
  return all;
}

}  // namespace wgpt::io
