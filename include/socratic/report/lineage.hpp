#pragma once
/// @file
/// @brief The report's view of a campaign's candidate store (docs/parallel.md): the lineage tree
/// (who made what from what, after which question; the gate's verdict on each, drafts marked) and
/// the incumbent's history (when each admitted candidate took over, by whom, at what speedup).
/// Read from the store's JSONL lines (`"type": "candidate"`), tolerant of a torn last line.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "socratic/core/candidate_origin.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/gate_outcome.hpp"
#include "socratic/core/store_line_type.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/report.hpp"
#include "socratic/report/detail/svg.hpp"

namespace socratic {

/// @brief One candidate of the store, as the report shows it.
struct LineageNode {
  std::string id;
  std::vector<std::string> parents;
  std::string agent;
  std::optional<OriginKind> origin;  ///< none: the record names no origin
  std::string question_id;
  std::string question_text;   ///< the question or direction that led to it
  std::optional<GateOutcome> verdict;  ///< none: the record names no verdict
  std::string reason;          ///< the gate's why
  std::string incumbent;       ///< the incumbent it was measured against
  /// Of its report: the gate's run, whose baseline is the incumbent it was timed against (the
  /// campaign's baseline for the first candidate).
  double geomean_speedup = std::nan("");
  double over_incumbent = std::nan("");  ///< the gate's last measurement's speedup, when recorded
  /// The speedup to show: the gate's own figure, else the report's geomean.
  double speedup() const { return std::isfinite(over_incumbent) ? over_incumbent : geomean_speedup; }
  double unix_s = 0;
  std::string time;
  bool draft() const { return origin == OriginKind::draft; }
  /// The origin's name, empty when none.
  std::string origin_name() const { return origin ? std::string(to_string(*origin)) : std::string(); }
  bool admitted() const { return verdict == GateOutcome::admitted; }
  std::string verdict_name() const { return verdict ? std::string(to_string(*verdict)) : std::string(); }
};

/// @brief A candidate record of the store (one JSON line) as a LineageNode.
inline LineageNode lineage_node(const json& line) {
  LineageNode n;
  n.id = line.value("id", "");
  if (line.contains("parents") && line["parents"].is_array())
    for (const auto& p : line["parents"])
      if (p.is_string()) n.parents.push_back(p);
  n.agent = line.value("agent", "");
  const json origin = line.value("origin", json::object());
  if (origin.is_object()) {
    if (origin.contains("kind"))
      n.origin = parse_origin_kind(origin.value("kind", ""), "store record " + n.id + " origin");
    n.question_id = origin.value("question_id", "");
    n.question_text = origin.value("question_text", "");
  }
  const json gate = line.value("gate", json::object());
  if (gate.is_object()) {
    if (gate.contains("verdict"))
      n.verdict = parse_gate_outcome(gate.value("verdict", ""), "store record " + n.id + " gate");
    n.reason = gate.value("reason", "");
    n.incumbent = gate.value("incumbent", "");
    // The gate's own figure: its last measurement's speedup over the incumbent (docs/store.md).
    const json f = gate.value("figures", json::object());
    if (f.is_object() && f.contains("measurements") && f["measurements"].is_array() && !f["measurements"].empty()) {
      const json& last = f["measurements"].back();
      if (last.is_object() && last.contains("speedup") && last["speedup"].is_number())
        n.over_incumbent = last["speedup"].get<double>();
    }
  }
  // The report is the gate's run: its baseline is the incumbent it was timed against.
  if (line.contains("report") && line["report"].is_object()) {
    try {
      n.geomean_speedup = line["report"].get<EvalReport>().geomean_speedup();
    } catch (const std::exception&) {
    }
  }
  n.unix_s = line.value("unix_s", 0.0);
  n.time = line.value("time", "");
  return n;
}

/// @brief The candidates of a store file (JSONL), in the order they were appended. A last line
/// cut short (a writer killed mid-line) is skipped; a bad line before it is an error naming it.
inline std::vector<LineageNode> read_store_lineage(const std::filesystem::path& store_file) {
  std::ifstream in(store_file, std::ios::binary);
  if (!in) throw input_error(store_file.string(), {}, "cannot read the candidate store");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  std::vector<LineageNode> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const json j = json::parse(lines[i], nullptr, false);
    if (j.is_discarded()) {
      if (i + 1 == lines.size()) break;  // torn last line
      throw input_error(store_file.string(), "line " + std::to_string(i + 1), "is not JSON");
    }
    if (j.is_object() && parse_store_line_type(j.value("type", "")) == StoreLineType::candidate) out.push_back(lineage_node(j));
  }
  return out;
}

/// @brief The admitted candidates in order: the incumbent's history.
inline std::vector<LineageNode> incumbent_history(const std::vector<LineageNode>& nodes) {
  std::vector<LineageNode> out;
  for (const auto& n : nodes)
    if (n.admitted()) out.push_back(n);
  return out;
}

namespace detail::report {

/// `1.234x`, or `n/a` when not a number.
inline std::string times(double v) { return std::isfinite(v) ? num(v) + "x" : std::string("n/a"); }

inline std::string lineage_label(const LineageNode& n) {
  const std::string verdict = n.verdict_name();
  std::string h = "<span class=\"cand " + escape(verdict) + "\">" + escape(n.id) + "</span> ";
  h += "<span class=\"who\">" + escape(n.agent.empty() ? std::string("?") : n.agent) + "</span> ";
  h += "<span class=\"verdict " + escape(verdict) + "\">" + escape(verdict.empty() ? "?" : verdict) + "</span>";
  if (n.draft()) h += " <span class=\"draft\">draft</span>";
  if (std::isfinite(n.speedup()) && n.verdict != GateOutcome::failed)  // a wrong candidate's time is no speedup
    h += " " + num(n.speedup()) + "x over " + (n.incumbent.empty() ? std::string("the baseline") : escape(n.incumbent));
  if (n.parents.size() > 1) {
    std::string also;
    for (std::size_t i = 1; i < n.parents.size(); ++i) also += (also.empty() ? "" : ", ") + n.parents[i];
    h += " <span class=\"also\">also from " + escape(also) + "</span>";
  }
  if (!n.question_text.empty())
    h += "<div class=\"after\">after " +
         escape(n.origin == OriginKind::question ? std::string("the question")
                : n.origin == OriginKind::start  ? std::string("the start question")
                                                 : n.origin_name()) +
         (n.question_id.empty() ? "" : " <code>" + escape(n.question_id) + "</code>") + ": &#8220;" +
         escape(excerpt(n.question_text, 200)) + "&#8221;</div>";
  else if (n.origin && n.origin != OriginKind::question)
    h += "<div class=\"after\">" + escape(n.origin_name()) + "</div>";
  if (!n.reason.empty()) h += "<div class=\"why\">" + escape(excerpt(n.reason, 240)) + "</div>";
  return h;
}

}  // namespace detail::report

/// @brief The lineage tree as nested lists: each candidate under its first parent (further
/// parents named beside it), roots (no parent in the store) at the top level, in store order.
inline std::string lineage_tree_html(const std::vector<LineageNode>& nodes) {
  using namespace detail::report;
  std::set<std::string> known;
  for (const auto& n : nodes) known.insert(n.id);
  std::map<std::string, std::vector<std::size_t>> children;
  std::vector<std::size_t> roots;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    if (!n.parents.empty() && known.count(n.parents.front()) && n.parents.front() != n.id)
      children[n.parents.front()].push_back(i);
    else
      roots.push_back(i);
  }
  std::string h = "<div class=\"lineage\" id=\"lineage\">\n";
  std::set<std::string> drawn;  // a malformed store with a cycle is drawn once, not forever
  const auto open = [&](std::size_t i) {
    const auto& n = nodes[i];
    return "<li data-candidate=\"" + escape(n.id) + "\" data-agent=\"" + escape(n.agent) + "\" data-verdict=\"" +
           escape(n.verdict_name()) + "\" data-draft=\"" + (n.draft() ? "true" : "false") + "\" data-parents=\"" +
           escape([&] {
             std::string p;
             for (const auto& x : n.parents) p += (p.empty() ? "" : " ") + x;
             return p;
           }()) +
           "\">" + lineage_label(n);
  };
  // An explicit stack of open lists, not recursion: a deep lineage cannot overflow the stack.
  const auto draw = [&](std::size_t root) {
    struct Frame {
      std::size_t node;
      std::size_t next_child = 0;
    };
    std::vector<Frame> frames{{root}};
    drawn.insert(nodes[root].id);
    h += open(root);
    while (!frames.empty()) {
      Frame& f = frames.back();
      const auto& kids = children[nodes[f.node].id];
      if (f.next_child == 0 && !kids.empty()) h += "\n<ul>";
      if (f.next_child < kids.size()) {
        const std::size_t k = kids[f.next_child++];
        if (drawn.insert(nodes[k].id).second) {
          h += open(k);
          frames.push_back({k});
        }
        continue;
      }
      if (!kids.empty()) h += "</ul>";
      h += "</li>\n";
      frames.pop_back();
    }
  };
  h += "<ul class=\"tree\">\n";
  for (std::size_t r : roots) draw(r);
  h += "</ul>\n</div>\n";
  return h;
}

/// @brief The incumbent's history as a table: when (seconds since the store's first record),
/// which candidate, whose, after what, its speedup over the incumbent it replaced (the gate's
/// interleaved measurement) and the product of those steps since the first incumbent.
inline std::string incumbent_history_html(const std::vector<LineageNode>& nodes) {
  using namespace detail::report;
  const std::vector<LineageNode> history = incumbent_history(nodes);
  const double t0 = nodes.empty() ? 0 : nodes.front().unix_s;
  std::string h =
      "<table class=\"grid q\" id=\"incumbents\"><tr><th>#</th><th>time</th><th>candidate</th><th>agent</th>"
      "<th>from</th><th>after</th><th>over the previous incumbent</th><th>chained since the first</th></tr>\n";
  double chained = 1;
  for (std::size_t i = 0; i < history.size(); ++i) {
    const auto& n = history[i];
    std::string from;
    for (const auto& p : n.parents) from += (from.empty() ? "" : ", ") + p;
    std::string after = n.question_text.empty() ? n.origin_name() : excerpt(n.question_text, 120);
    if (n.draft()) after = "draft: " + after;
    h += "<tr data-candidate=\"" + escape(n.id) + "\"><td>" + std::to_string(i + 1) + "</td><td>+" +
         num(n.unix_s - t0, "%.1f") + " s" + (n.time.empty() ? "" : " (" + escape(n.time) + ")") +
         "</td><td class=\"text\">" + escape(n.id) + "</td><td class=\"text\">" + escape(n.agent) +
         "</td><td class=\"text\">" + escape(from.empty() ? "-" : from) + "</td><td class=\"text\">" + escape(after) +
         "</td><td>" + (i == 0 ? std::string("-") : times(n.speedup()) + " over " + escape(n.incumbent)) + "</td><td>" +
         (i == 0 ? std::string("1x") : times(chained *= n.speedup())) + "</td></tr>\n";
  }
  if (history.empty()) h += "<tr><td colspan=\"8\" class=\"text\">no candidate was admitted</td></tr>\n";
  h += "</table>\n";
  return h;
}

/// @brief The store's JSON for the report's data block.
inline json lineage_json(const std::vector<LineageNode>& nodes) {
  json out = json::array();
  for (const auto& n : nodes)
    out.push_back({{"id", n.id},
                   {"parents", n.parents},
                   {"agent", n.agent},
                   {"origin", n.origin_name()},
                   {"question_id", n.question_id},
                   {"verdict", n.verdict_name()},
                   {"draft", n.draft()},
                   {"incumbent", n.incumbent},
                   {"speedup", std::isfinite(n.speedup()) ? json(n.speedup()) : json(nullptr)},
                   {"unix_s", n.unix_s}});
  return out;
}

}  // namespace socratic
