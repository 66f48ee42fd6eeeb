#pragma once
/// @file
/// @brief AnchorTable: the best known throughput (TFLOP/s) per scenario, from measurements of
/// published implementations. A candidate that outruns them by an implausible margin is
/// suspicious: the suspicious-gain detector checks it.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/files.hpp"

namespace socratic {

/// @brief Best known TFLOP/s per scenario id.
///
/// Accepted JSON forms:
/// - an object of numbers: `{"b4_s4096_d128": 520.3, ...}`;
/// - `{"anchors": [ROW, ...]}` or a bare array of rows, where a row has `scenario` (the id) and
///   either `tflops` or several `*_tflops` members (the best is kept: e.g. `cudnn_tflops`,
///   `flash_tflops` in `anchors/sdpa_h200.json`). Rows without `scenario` need an id template,
///   `{name}` replaced by the row's member `name` (e.g. `"s{s}_d{d}_causal{causal}"`).
///
/// The object form with `anchors` may also say on which GPU they were measured (`gpu`, as
/// `nvidia-smi` names it) and how to name each implementation (`labels`: `{"cudnn": "cuDNN"}`);
/// each `NAME_tflops` member of a row is kept per implementation as well (`by_implementation`),
/// for reports that show every anchor rather than the best.
struct AnchorTable {
  std::map<std::string, double> tflops;  ///< scenario id -> best known TFLOP/s
  std::string source;                    ///< where it was loaded from
  std::string gpu;                       ///< the GPU they were measured on; empty: not said
  /// scenario id -> implementation (`cudnn`, `flash`, ...) -> TFLOP/s, from `NAME_tflops` members
  std::map<std::string, std::map<std::string, double>> by_implementation;
  std::map<std::string, std::string> labels;  ///< implementation -> how to name it

  /// @brief The implementations named in `by_implementation`, in name order.
  std::vector<std::string> implementations() const {
    std::set<std::string> names;
    for (const auto& [id, row] : by_implementation)
      for (const auto& [name, value] : row) names.insert(name);
    return {names.begin(), names.end()};
  }
  /// @brief `labels[name]`, else the name itself.
  std::string label(const std::string& name) const {
    auto it = labels.find(name);
    return it == labels.end() ? name : it->second;
  }

  /// @brief The anchor of `scenario_id`, or nullopt.
  std::optional<double> find(std::string_view scenario_id) const {
    auto it = tflops.find(std::string(scenario_id));
    if (it == tflops.end()) return std::nullopt;
    return it->second;
  }

  /// @brief Reads one of the accepted forms. `id_template` names rows that carry no `scenario`.
  static AnchorTable from_json(const json& j, std::string_view id_template = {}, std::string source = {}) {
    AnchorTable t;
    t.source = source;
    auto fail = [&](const std::string& where, const std::string& message) {
      throw input_error(source, where, message);
    };
    if (j.is_object() && !j.contains("anchors")) {
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (!it->is_number() || !(it->get<double>() > 0))
          fail("anchor \"" + it.key() + "\"", "expected a positive number of TFLOP/s");
        t.tflops[it.key()] = it->get<double>();
      }
      return t;
    }
    const json& rows = j.is_object() ? j.at("anchors") : j;
    if (!rows.is_array()) fail("anchors", "expected an array of rows");
    if (j.is_object()) {
      if (auto g = j.find("gpu"); g != j.end()) {
        if (!g->is_string()) fail("gpu", "expected a string (the GPU's name, as nvidia-smi gives it)");
        t.gpu = g->get<std::string>();
      }
      if (auto l = j.find("labels"); l != j.end()) {
        if (!l->is_object()) fail("labels", "expected an object of implementation names");
        for (auto it = l->begin(); it != l->end(); ++it) {
          if (!it->is_string()) fail("labels \"" + it.key() + "\"", "expected a string");
          t.labels[it.key()] = it->get<std::string>();
        }
      }
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const json& row = rows[i];
      const std::string where = "anchor row #" + std::to_string(i);
      if (!row.is_object()) fail(where, "expected an object");
      std::string id;
      if (auto it = row.find("scenario"); it != row.end() && it->is_string()) {
        id = it->get<std::string>();
      } else if (!id_template.empty()) {
        id = expand(id_template, row, where, source);
      } else {
        fail(where, "no \"scenario\" member and no id template to name the row");
      }
      double best = std::nan("");
      for (auto it = row.begin(); it != row.end(); ++it) {
        const std::string& key = it.key();
        const bool is_tflops = key == "tflops" ||
                               (key.size() > 7 && key.compare(key.size() - 7, 7, "_tflops") == 0);
        if (is_tflops && it->is_number() && (!std::isfinite(best) || it->get<double>() > best))
          best = it->get<double>();
        if (is_tflops && key != "tflops" && it->is_number() && it->get<double>() > 0)
          t.by_implementation[id][key.substr(0, key.size() - 7)] = it->get<double>();
      }
      if (!std::isfinite(best) || best <= 0) fail(where + " \"" + id + "\"", "no positive tflops member");
      t.tflops[id] = std::max(t.tflops.count(id) ? t.tflops[id] : 0.0, best);
    }
    return t;
  }

  /// @brief Loads a file in one of the accepted forms.
  static AnchorTable load(const std::filesystem::path& path, std::string_view id_template = {}) {
    return from_json(read_json_file(path), id_template, path.string());
  }

 private:
  static std::string expand(std::string_view tmpl, const json& row, const std::string& where,
                            const std::string& source) {
    std::string out;
    for (std::size_t i = 0; i < tmpl.size(); ++i) {
      if (tmpl[i] != '{') {
        out += tmpl[i];
        continue;
      }
      const auto close = tmpl.find('}', i);
      if (close == std::string_view::npos)
        throw input_error(source, where, "id template has an unclosed '{'");
      const std::string key(tmpl.substr(i + 1, close - i - 1));
      auto it = row.find(key);
      if (it == row.end()) throw input_error(source, where, "id template names \"" + key + "\", absent from the row");
      out += it->is_string() ? it->get<std::string>() : it->dump();
      i = close;
    }
    return out;
  }
};

}  // namespace socratic
