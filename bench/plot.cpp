#include "bench/plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace reapcheck {
namespace {

constexpr double kWidth = 760, kHeight = 460;
constexpr double kLeft = 70, kRight = 190, kTop = 40, kBottom = 60;
constexpr const char* kColours[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a",
                                    "#66a61e", "#e6ab02", "#a6761d", "#666666"};

// A log10 axis from the decade at or below `lo` to the decade at or above `hi`.
struct LogAxis {
  double lo_exp, hi_exp, from, to;  // decades, and the pixel range they map onto
  LogAxis(double lo, double hi, double from_px, double to_px)
      : lo_exp(std::floor(std::log10(lo))),
        hi_exp(std::max(std::ceil(std::log10(hi)), std::floor(std::log10(lo)) + 1)),
        from(from_px),
        to(to_px) {}
  double at(double v) const {
    return from + (std::log10(v) - lo_exp) / (hi_exp - lo_exp) * (to - from);
  }
};

std::string decade_label(double exp) {
  const double v = std::pow(10.0, exp);
  return v >= 1 ? fmt::format("{:.0f}", v) : fmt::format("{:g}", v);
}

}  // namespace

std::string bench_plot_svg(const BenchResult& r) {
  std::map<std::string, std::vector<std::pair<int, double>>> lines;  // reaper → (members, ms)
  std::vector<std::string> order;
  double min_n = 1e9, max_n = 1, min_ms = 1e9, max_ms = 0;
  for (const auto& s : r.reap) {
    if (s.shape != "wide" || s.ms < 0 || s.preset) continue;  // the built-ins' lines only
    if (lines.find(s.reaper) == lines.end()) order.push_back(s.reaper);
    const double ms = std::max(s.ms, 0.01);  // a log scale has no zero
    lines[s.reaper].emplace_back(s.members, ms);
    min_n = std::min(min_n, double(s.members));
    max_n = std::max(max_n, double(s.members));
    min_ms = std::min(min_ms, ms);
    max_ms = std::max(max_ms, ms);
  }
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"22\" font-size=\"15\">Reap latency: kill request until every member "
      "is dead (wide trees)</text>\n",
      kWidth, kHeight, kLeft);
  if (lines.empty()) return svg + "<text x=\"70\" y=\"80\">no samples</text>\n</svg>\n";

  const LogAxis x(min_n, max_n, kLeft, kWidth - kRight);
  const LogAxis y(min_ms, max_ms, kHeight - kBottom, kTop);
  // Grid and ticks at each decade.
  for (double e = x.lo_exp; e <= x.hi_exp; ++e) {
    const double px = x.at(std::pow(10.0, e));
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        px, kTop, kHeight - kBottom, kHeight - kBottom + 18, decade_label(e));
  }
  for (double e = y.lo_exp; e <= y.hi_exp; ++e) {
    const double py = y.at(std::pow(10.0, e));
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        kLeft, py, kWidth - kRight, kLeft - 6, py + 4, decade_label(e));
  }
  svg += fmt::format(
      "<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">members in the tree</text>\n"
      "<text x=\"18\" y=\"{2}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {2})\">"
      "ms (log scale)</text>\n",
      (kLeft + kWidth - kRight) / 2, kHeight - 20, (kTop + kHeight - kBottom) / 2);

  for (size_t i = 0; i < order.size(); ++i) {
    auto& points = lines[order[i]];
    std::sort(points.begin(), points.end());
    const char* colour = kColours[i % std::size(kColours)];
    std::string path;
    for (const auto& [n, ms] : points) {
      path += fmt::format("{:.1f},{:.1f} ", x.at(n), y.at(ms));
      svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", x.at(n),
                         y.at(ms), colour);
    }
    svg += fmt::format(
        "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n"
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text>\n",
        path, colour, kWidth - kRight + 16, kTop + 12 + 20 * i, kWidth - kRight + 36,
        kTop + 12 + 20 * i, colour, kWidth - kRight + 42, kTop + 16 + 20 * i, order[i]);
  }
  return svg + "</svg>\n";
}

}  // namespace reapcheck
