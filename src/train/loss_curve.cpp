#include "train/loss_curve.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace wgpt::train {
namespace {

constexpr double kWidth = 720, kHeight = 400;
constexpr double kLeft = 60, kRight = 20, kTop = 30, kBottom = 45;
// Training losses are averaged in buckets down to at most this many points: a 50 000-step run
// stays a small file, and the averaging smooths the batch-to-batch noise.
constexpr size_t kMaxPoints = 600;

std::string number(double value, const char* format = "%.3g") {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::vector<LossPoint> bucket_means(const std::vector<LossPoint>& points) {
  const size_t per_bucket = std::max<size_t>(1, (points.size() + kMaxPoints - 1) / kMaxPoints);
  std::vector<LossPoint> out;
  for (size_t first = 0; first < points.size(); first += per_bucket) {
    const size_t last = std::min(points.size(), first + per_bucket);
    double sum = 0;
    for (size_t i = first; i < last; ++i) sum += points[i].loss;
    out.push_back({points[last - 1].step, sum / static_cast<double>(last - first)});
  }
  return out;
}

}  // namespace

std::string loss_curve_svg(const std::vector<LossPoint>& train,
                           const std::vector<LossPoint>& validation) {
  const std::vector<LossPoint> smooth = bucket_means(train);
  size_t max_step = 1;
  double low = 1e300, high = -1e300;
  for (const auto* series : {&smooth, &validation}) {
    for (const LossPoint& p : *series) {
      max_step = std::max(max_step, p.step);
      low = std::min(low, p.loss);
      high = std::max(high, p.loss);
    }
  }
  if (low > high) low = 0, high = 1;  // nothing to draw yet
  if (high - low < 1e-6) high = low + 1;
  const double pad = 0.05 * (high - low);
  low -= pad;
  high += pad;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto x_of = [&](double step) { return kLeft + plot_w * step / static_cast<double>(max_step); };
  auto y_of = [&](double loss) { return kTop + plot_h * (high - loss) / (high - low); };
  auto polyline = [&](const std::vector<LossPoint>& points, const char* colour, double width) {
    std::string out = "<polyline fill=\"none\" stroke=\"" + std::string(colour) +
                      "\" stroke-width=\"" + number(width) + "\" points=\"";
    for (const LossPoint& p : points) {
      out += number(x_of(static_cast<double>(p.step)), "%.1f") + "," +
             number(y_of(p.loss), "%.1f") + " ";
    }
    return out + "\"/>\n";
  };

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << kLeft
      << "\" y=\"18\" font-size=\"14\">loss (cross-entropy, nats per "
         "token)</text>\n";
  for (int i = 0; i <= 4; ++i) {
    const double loss = low + (high - low) * i / 4.0, y = y_of(loss);
    const double step = static_cast<double>(max_step) * i / 4.0, x = x_of(step);
    svg << "<line x1=\"" << kLeft << "\" x2=\"" << kWidth - kRight << "\" y1=\"" << y << "\" y2=\""
        << y << "\" stroke=\"#eee\"/>\n"
        << "<text x=\"" << kLeft - 6 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">"
        << number(loss) << "</text>\n"
        << "<text x=\"" << x << "\" y=\"" << kHeight - kBottom + 16 << "\" text-anchor=\"middle\">"
        << number(step, "%.0f") << "</text>\n";
  }
  svg << "<text x=\"" << kLeft + plot_w / 2 << "\" y=\"" << kHeight - 8
      << "\" text-anchor=\"middle\">step</text>\n"
      << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << plot_w << "\" height=\""
      << plot_h << "\" fill=\"none\" stroke=\"#888\"/>\n"
      << polyline(smooth, "#4a90d9", 1.5) << polyline(validation, "#d9534f", 2);
  for (const LossPoint& p : validation) {
    svg << "<circle cx=\"" << x_of(static_cast<double>(p.step)) << "\" cy=\"" << y_of(p.loss)
        << "\" r=\"3\" fill=\"#d9534f\"/>\n";
  }
  svg << "<text x=\"" << kWidth - kRight - 8 << "\" y=\"" << kTop + 16
      << "\" text-anchor=\"end\" fill=\"#4a90d9\">training</text>\n"
      << "<text x=\"" << kWidth - kRight - 8 << "\" y=\"" << kTop + 32
      << "\" text-anchor=\"end\" fill=\"#d9534f\">held-out</text>\n</svg>\n";
  return svg.str();
}

}  // namespace wgpt::train
