// How fluid the attention panels stay as a long answer streams in, on a big model's shape (28
// layers × 32 heads, like ChatGLM2-6B). A prefill of P tokens is followed by one decode row per
// step until --tokens, and after every step each panel is updated and painted synchronously
// (QWidget::repaint on a shown window), so a frame's time is what one token costs the UI thread:
//   heat map  one head: appendRows of the new query row, then a paint;
//   head grid the 32 heads of one layer: 32 appendRows, then a paint;
//   overview  28 × 32 values: setValues, then a paint;
//   combined  the three above, in one step.
// Frame times are summarised over the last 200 steps (median, 95th percentile) and over the first
// 200 (so that growth with the token count shows), in wall time and in processor time (on a
// shared machine the wall time also holds the slices other programs took). Also timed once per run:
// setMatrix of the whole --tokens² matrix plus its first paint, switching it to the log scale, and
// the app-side cost of the overview's metric (meanRowEntropy of every head's new row). The whole
// scenario runs for the linear and the log colour scale, --repeats times; medians across runs are
// reported.
//
// Every timed paint is checked to have reached paintEvent (an event filter counts Paint events):
// a platform that skipped painting would otherwise report impossibly good figures.
//
// usage: bench_attention_panel_fps [--tokens N] [--prefill P] [--repeats R] [--seed S] [--json]

#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QWidget>
#include <QWindow>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "attention_head_grid_widget.h"
#include "attention_heatmap_widget.h"
#include "attention_overview_widget.h"

using namespace inferlens::widgets;

namespace {

constexpr int kLayers = 28;
constexpr int kHeads = 32;
constexpr int kWindow = 200;  // frames per summary window
const QSize kHeatmapSize(900, 800);
const QSize kHeadGridSize(800, 700);
const QSize kOverviewSize(600, 500);

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "bench_attention_panel_fps: %s\n", message.c_str());
    std::exit(1);
}

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double uniform(uint64_t& state) {
    return double(splitmix64(state) >> 11) * 0x1.0p-53;
}

// Attention shaped like a trained model's: most heads park weight on an attention sink (key 0),
// look at a band of recent tokens, and spread the rest unevenly. Each (layer, head) draws its own
// mix; each row is a pure function of (seed, layer, head, query), so runs and scales see the same
// data whatever order it is made in.
class SyntheticAttention {
  public:
    explicit SyntheticAttention(uint64_t seed) : seed_(seed) {}

    // Weights of `query` over keys 0 .. keyCount − 1 (zero past the query), summing to 1.
    void row(int layer, int head, int query, int keyCount, float* out) const {
        uint64_t headState = seed_ ^ (uint64_t(layer) << 40) ^ (uint64_t(head) << 20);
        const double sink = 2 + 6 * uniform(headState);
        const double band = 1 + 63 * uniform(headState);
        const double bandStrength = 5 * uniform(headState);
        const double noise = 0.5 + 2 * uniform(headState);
        uint64_t state = headState ^ (uint64_t(query) * 0xD1B54A32D192ED03ull);
        const int last = std::min(query, keyCount - 1);
        double maximum = -1e30;
        for (int key = 0; key <= last; ++key) {
            const double distance = query - key;
            double logit = noise * (2 * uniform(state) - 1);
            if (key == 0) {
                logit += sink;
            }
            if (distance < band) {
                logit += bandStrength * (1 - distance / band);
            }
            out[key] = float(logit);
            maximum = std::max(maximum, logit);
        }
        double sum = 0;
        for (int key = 0; key <= last; ++key) {
            const float e = std::exp(float(out[key] - maximum));
            out[key] = e;
            sum += e;
        }
        for (int key = 0; key <= last; ++key) {
            out[key] = float(out[key] / sum);
        }
        std::fill(out + last + 1, out + keyCount, 0.0f);
    }

    AttentionMatrix matrix(int layer, int head, int firstQuery, int queryCount,
                           int keyCount) const {
        AttentionMatrix m{layer, head, firstQuery, queryCount, keyCount, {}};
        m.weights.resize(size_t(queryCount) * size_t(keyCount));
        for (int i = 0; i < queryCount; ++i) {
            row(layer, head, firstQuery + i, keyCount, m.weights.data() + size_t(i) * keyCount);
        }
        return m;
    }

  private:
    uint64_t seed_;
};

// Counts the Paint events a widget receives, so that each timed repaint can be shown to have run
// paintEvent rather than been dropped (an unexposed or hidden window paints nothing).
class PaintCounter : public QObject {
  public:
    int count = 0;

  protected:
    bool eventFilter(QObject*, QEvent* event) override {
        if (event->type() == QEvent::Paint) {
            ++count;
        }
        return false;
    }
};

struct Panel {
    std::string name;
    QWidget* widget;
    PaintCounter counter;
    int missedPaints = 0;  // timed repaints that did not reach paintEvent
    int extraPaints = 0;   // paints outside the timed repaints (work the timing would not see)

    Panel(std::string n, QWidget* w) : name(std::move(n)), widget(w) {
        widget->installEventFilter(&counter);
    }

    void repaint() {
        const int before = counter.count;
        widget->repaint();
        if (counter.count != before + 1) {
            ++missedPaints;
        }
    }
};

void showExposed(QWidget& widget, QSize size) {
    widget.resize(size);
    widget.show();
    QElapsedTimer timer;
    timer.start();
    while (!(widget.windowHandle() && widget.windowHandle()->isExposed()) &&
           timer.elapsed() < 5000) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    }
    if (!widget.windowHandle() || !widget.windowHandle()->isExposed()) {
        fail("a panel window was not exposed within 5 s, so repaint() would paint nothing");
    }
    QCoreApplication::processEvents();
}

// Events posted by the updates (update() requests) are delivered between steps, as the event loop
// would; any paint they cause is counted as extra rather than hidden.
void drainEvents(std::vector<Panel*> panels) {
    std::vector<int> before;
    for (Panel* panel : panels) {
        before.push_back(panel->counter.count);
    }
    QCoreApplication::processEvents();
    for (size_t i = 0; i < panels.size(); ++i) {
        panels[i]->extraPaints += panels[i]->counter.count - before[i];
    }
}

double median(std::vector<double> values) {
    if (values.empty()) {
        return std::nan("");
    }
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double percentile95(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const size_t rank = size_t(std::ceil(0.95 * double(values.size())));
    return values[std::max<size_t>(rank, 1) - 1];
}

std::vector<double> lastFrames(const std::vector<double>& v, size_t n) {
    return {v.end() - ptrdiff_t(std::min(n, v.size())), v.end()};
}
std::vector<double> firstFrames(const std::vector<double>& v, size_t n) {
    return {v.begin(), v.begin() + ptrdiff_t(std::min(n, v.size()))};
}

struct Options {
    int tokens = 2000;
    int prefill = -1;  // −1: half of tokens
    int repeats = 5;
    uint64_t seed = 1;
    bool json = false;
};

// Figures of all runs by name ("linear.heatmap.frame_median_ms"), in the order first recorded.
class Figures {
  public:
    void add(const std::string& name, double value) {
        if (!runs_.count(name)) {
            order_.push_back(name);
        }
        runs_[name].push_back(value);
    }
    double medianOf(const std::string& name) const { return median(runs_.at(name)); }
    const std::vector<std::string>& names() const { return order_; }
    const std::vector<double>& runs(const std::string& name) const { return runs_.at(name); }

  private:
    std::vector<std::string> order_;
    std::map<std::string, std::vector<double>> runs_;
};

struct Series {
    std::vector<double> frame, paint, cpu;
};

// Processor time of this process, in ms: on a shared machine the wall time of a frame includes
// the time other programs held the core, the processor time is the panel's own work.
double cpuMs() {
    return 1000.0 * double(std::clock()) / CLOCKS_PER_SEC;
}

// Times one-off work (a single sample per run) in wall and processor time: `name`_ms,
// `name`_cpu_ms.
class Stopwatch {
  public:
    void record(Figures& figures, const std::string& name) const {
        figures.add(name + "_ms", msSince(wall_));
        figures.add(name + "_cpu_ms", cpuMs() - cpu_);
    }

  private:
    Clock::time_point wall_ = Clock::now();
    double cpu_ = cpuMs();
};

void addSeries(Figures& figures, const std::string& prefix, const Series& s) {
    const auto last = lastFrames(s.frame, kWindow);
    figures.add(prefix + ".frame_median_ms", median(last));
    figures.add(prefix + ".frame_p95_ms", percentile95(last));
    figures.add(prefix + ".paint_median_ms", median(lastFrames(s.paint, kWindow)));
    figures.add(prefix + ".cpu_median_ms", median(lastFrames(s.cpu, kWindow)));
    figures.add(prefix + ".cpu_p95_ms", percentile95(lastFrames(s.cpu, kWindow)));
    figures.add(prefix + ".early_frame_median_ms", median(firstFrames(s.frame, kWindow)));
}

// One run of the scenario on one colour scale; fresh widgets, so nothing carries over.
void runScenario(const Options& o, const SyntheticAttention& synth, bool logScale, Figures& figures,
                 int& paintsChecked) {
    const std::string scale = logScale ? "log" : "linear";
    const int prefill = o.prefill;
    AttentionHeatmapWidget heatmap;
    AttentionHeadGridWidget grid;
    AttentionOverviewWidget overview;
    heatmap.setLogScale(logScale);
    grid.setLogScale(logScale);
    overview.setMetricName(QStringLiteral("entropy (nats)"));
    showExposed(heatmap, kHeatmapSize);
    showExposed(grid, kHeadGridSize);
    showExposed(overview, kOverviewSize);
    Panel heatPanel("heatmap", &heatmap), gridPanel("grid", &grid),
        overviewPanel("overview", &overview);
    const std::vector<Panel*> panels{&heatPanel, &gridPanel, &overviewPanel};

    // Prefill: the app hands each widget the square prompt matrix once.
    {
        AttentionMatrix m = synth.matrix(0, 0, 0, prefill, prefill);
        const Stopwatch watch;
        heatmap.setMatrix(std::move(m));
        heatPanel.repaint();
        watch.record(figures, scale + ".heatmap.prefill_set_and_paint");
    }
    {
        // All 32 prompt matrices are made first (128 MB at 1,000 tokens), so the clock sees only
        // the widget.
        std::vector<AttentionMatrix> prompt;
        for (int head = 0; head < kHeads; ++head) {
            prompt.push_back(synth.matrix(0, head, 0, prefill, prefill));
        }
        const Stopwatch watch;
        grid.setLayer(0, kHeads);
        for (const AttentionMatrix& m : prompt) {
            grid.setMatrix(m);
        }
        gridPanel.repaint();
        watch.record(figures, scale + ".grid.prefill_set_and_paint");
    }
    // Overview values drift around a per-head level, as per-head entropies do over a generation.
    std::vector<float> level(size_t(kLayers) * kHeads);
    uint64_t valueState = o.seed * 7919 + 17;
    for (float& v : level) {
        v = float(0.3 + 5 * uniform(valueState));
    }
    overview.setValues(kLayers, kHeads, level);
    overviewPanel.repaint();
    drainEvents(panels);
    paintsChecked += 3;

    Series heat, headGrid, over, combined;
    std::vector<AttentionMatrix> rows(kHeads);
    std::vector<float> values(level.size());
    for (int query = prefill; query < o.tokens; ++query) {
        // The data an engine event would bring, made before the clock starts.
        for (int head = 0; head < kHeads; ++head) {
            rows[size_t(head)] = synth.matrix(0, head, query, 1, query + 1);
        }
        for (size_t i = 0; i < values.size(); ++i) {
            values[i] = level[i] + float(0.2 * (uniform(valueState) - 0.5));
        }
        std::vector<float> valuesCopy = values;

        const double cpuStart = cpuMs();
        const auto start = Clock::now();
        heatmap.appendRows(rows[0]);
        const auto heatPaint = Clock::now();
        heatPanel.repaint();
        const double cpuGrid = cpuMs();
        const auto gridStart = Clock::now();
        for (const AttentionMatrix& row : rows) {
            grid.appendRows(row);
        }
        const auto gridPaint = Clock::now();
        gridPanel.repaint();
        const double cpuOverview = cpuMs();
        const auto overviewStart = Clock::now();
        overview.setValues(kLayers, kHeads, std::move(valuesCopy));
        const auto overviewPaint = Clock::now();
        overviewPanel.repaint();
        const auto end = Clock::now();
        const double cpuEnd = cpuMs();

        using Ms = std::chrono::duration<double, std::milli>;
        heat.frame.push_back(Ms(gridStart - start).count());
        heat.paint.push_back(Ms(gridStart - heatPaint).count());
        headGrid.frame.push_back(Ms(overviewStart - gridStart).count());
        headGrid.paint.push_back(Ms(overviewStart - gridPaint).count());
        over.frame.push_back(Ms(end - overviewStart).count());
        over.paint.push_back(Ms(end - overviewPaint).count());
        combined.frame.push_back(Ms(end - start).count());
        combined.paint.push_back(heat.paint.back() + headGrid.paint.back() + over.paint.back());
        heat.cpu.push_back(cpuGrid - cpuStart);
        headGrid.cpu.push_back(cpuOverview - cpuGrid);
        over.cpu.push_back(cpuEnd - cpuOverview);
        combined.cpu.push_back(cpuEnd - cpuStart);
        paintsChecked += 3;
        drainEvents(panels);
    }
    addSeries(figures, scale + ".heatmap", heat);
    addSeries(figures, scale + ".grid", headGrid);
    addSeries(figures, scale + ".overview", over);
    addSeries(figures, scale + ".combined", combined);

    // The state the widgets must have reached, or the figures describe something else.
    if (heatmap.queryCount() != o.tokens || heatmap.keyCount() != o.tokens ||
        grid.headCount() != kHeads || overview.layerCount() != kLayers ||
        overview.headCount() != kHeads) {
        fail("the panels did not end at the expected shape");
    }
    const int block = grid.blockSize(0);
    if (block * AttentionHeadGridWidget::kThumbnailCells < o.tokens ||
        (block > 1 && block / 2 * AttentionHeadGridWidget::kThumbnailCells >= o.tokens)) {
        fail("the head grid's block size does not match the token count");
    }

    // The whole matrix at once (a head picked after generation, or a trace loaded): setMatrix of
    // tokens² weights plus the first paint; then the scale switched over those cells.
    {
        AttentionMatrix full = synth.matrix(0, 1, 0, o.tokens, o.tokens);
        const Stopwatch watch;
        heatmap.setMatrix(std::move(full));
        heatPanel.repaint();
        watch.record(figures, scale + ".heatmap.full_set_and_paint");
        const Stopwatch toggle;
        heatmap.setLogScale(!logScale);
        heatPanel.repaint();
        toggle.record(figures, scale + ".heatmap.toggle_scale_and_paint");
        paintsChecked += 2;
        drainEvents(panels);
    }

    for (const Panel* panel : panels) {
        if (panel->missedPaints > 0) {
            fail(
                std::to_string(panel->missedPaints) +
                " timed repaints did not reach paintEvent: the figures would not include painting");
        }
        figures.add(scale + "." + panel->name + ".extra_paints", panel->extraPaints);
    }
}

// What an app feeding the overview with entropies would spend per token before the widget sees a
// number: meanRowEntropy of the new row of every head (layers × heads rows of `tokens` keys).
double entropyOfEveryHeadMs(const Options& o, const SyntheticAttention& synth) {
    std::vector<AttentionMatrix> rows;
    for (int layer = 0; layer < kLayers; ++layer) {
        for (int head = 0; head < kHeads; ++head) {
            rows.push_back(synth.matrix(layer, head, o.tokens - 1, 1, o.tokens));
        }
    }
    std::vector<double> samples;
    float sink = 0;
    for (int i = 0; i < 11; ++i) {
        const auto start = Clock::now();
        for (const AttentionMatrix& m : rows) {
            sink += AttentionOverviewWidget::meanRowEntropy(m);
        }
        samples.push_back(msSince(start));
    }
    if (!std::isfinite(sink)) {
        fail("the entropy of a synthetic row is not finite");
    }
    return median(samples);
}

Options parse(int argc, char** argv) {
    Options o;
    auto number = [&](int& i) {
        if (i + 1 >= argc) {
            fail(std::string(argv[i]) + " needs a value");
        }
        char* end = nullptr;
        const long long v = std::strtoll(argv[++i], &end, 10);
        if (*end != '\0' || v < 0) {
            fail(std::string("not a count: ") + argv[i]);
        }
        return v;
    };
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--tokens") == 0) {
            o.tokens = int(number(i));
        } else if (std::strcmp(argv[i], "--prefill") == 0) {
            o.prefill = int(number(i));
        } else if (std::strcmp(argv[i], "--repeats") == 0) {
            o.repeats = int(number(i));
        } else if (std::strcmp(argv[i], "--seed") == 0) {
            o.seed = uint64_t(number(i));
        } else if (std::strcmp(argv[i], "--json") == 0) {
            o.json = true;
        } else {
            fail(std::string("unknown argument ") + argv[i] +
                 "\nusage: bench_attention_panel_fps [--tokens N] [--prefill P] [--repeats R] "
                 "[--seed S] [--json]");
        }
    }
    if (o.prefill < 0) {
        o.prefill = o.tokens / 2;
    }
    if (o.prefill < 1 || o.prefill >= o.tokens || o.repeats < 1) {
        fail("need 1 ≤ prefill < tokens and repeats ≥ 1");
    }
    return o;
}

void printTable(const Options& o, const Figures& f, int paintsChecked) {
    const int steps = o.tokens - o.prefill;
    std::printf(
        "attention panels: %d layers × %d heads, prefill %d + %d decode steps = %d tokens, "
        "%d runs (medians across runs); platform %s\n",
        kLayers, kHeads, o.prefill, steps, o.tokens, o.repeats,
        qUtf8Printable(QGuiApplication::platformName()));
    std::printf(
        "ms per frame over the last %d steps (to %d tokens): wall median and p95, frames/s = "
        "1000 / median,\nprocessor time (wall less preemption) median and p95, repaint() alone "
        "(wall median); early: wall median\nof the first %d steps (from %d)\n\n",
        std::min(kWindow, steps), o.tokens, std::min(kWindow, steps), o.prefill + 1);
    std::printf("%-7s %-9s %9s %9s %9s %9s %9s %9s %9s\n", "scale", "panel", "median", "p95",
                "frames/s", "cpu med", "cpu p95", "paint", "early");
    for (const char* scale : {"linear", "log"}) {
        for (const char* panel : {"heatmap", "grid", "overview", "combined"}) {
            const std::string p = std::string(scale) + "." + panel;
            const double m = f.medianOf(p + ".frame_median_ms");
            std::printf("%-7s %-9s %9.3f %9.3f %9.0f %9.3f %9.3f %9.3f %9.3f\n", scale, panel, m,
                        f.medianOf(p + ".frame_p95_ms"), 1000.0 / m,
                        f.medianOf(p + ".cpu_median_ms"), f.medianOf(p + ".cpu_p95_ms"),
                        f.medianOf(p + ".paint_median_ms"),
                        f.medianOf(p + ".early_frame_median_ms"));
        }
    }
    std::printf("\n%-7s %-46s %9s %9s\n", "scale", "one-off (one sample per run)", "ms", "cpu ms");
    for (const char* scale : {"linear", "log"}) {
        const std::string s = scale;
        const std::string other = s == "log" ? "linear" : "log";
        const std::pair<std::string, std::string> rows[] = {
            {"heat map prefill setMatrix + paint", s + ".heatmap.prefill_set_and_paint"},
            {"head grid prefill 32 × setMatrix + paint", s + ".grid.prefill_set_and_paint"},
            {"heat map setMatrix(tokens²) + first paint", s + ".heatmap.full_set_and_paint"},
            {"heat map tokens², switch to " + other + " + paint",
             s + ".heatmap.toggle_scale_and_paint"},
        };
        for (const auto& [label, name] : rows) {
            std::printf("%-7s %-46s %9.2f %9.2f\n", scale, label.c_str(), f.medianOf(name + "_ms"),
                        f.medianOf(name + "_cpu_ms"));
        }
    }
    std::printf("%-7s %-46s %10.2f\n", "-", "app side: meanRowEntropy, 896 heads' new row",
                f.medianOf("app.entropy_all_heads_ms"));
    double extra = 0;
    for (const std::string& name : f.names()) {
        if (name.ends_with(".extra_paints")) {
            for (const double v : f.runs(name)) {
                extra += v;
            }
        }
    }
    std::printf(
        "\npaints checked: %d, all reached paintEvent; paints outside the timed repaints (all "
        "runs): "
        "%.0f\n",
        paintsChecked, extra);
}

void printJson(const Options& o, const Figures& f, int paintsChecked) {
    std::printf(
        "{\n  \"layers\": %d, \"heads\": %d, \"tokens\": %d, \"prefill\": %d, "
        "\"repeats\": %d, \"seed\": %llu, \"window\": %d,\n",
        kLayers, kHeads, o.tokens, o.prefill, o.repeats, static_cast<unsigned long long>(o.seed),
        std::min(kWindow, o.tokens - o.prefill));
    std::printf("  \"platform\": \"%s\", \"qt\": \"%s\", \"paints_checked\": %d,\n",
                qUtf8Printable(QGuiApplication::platformName()), qVersion(), paintsChecked);
    std::printf(
        "  \"sizes\": {\"heatmap\": [%d, %d], \"grid\": [%d, %d], \"overview\": [%d, %d]},\n",
        kHeatmapSize.width(), kHeatmapSize.height(), kHeadGridSize.width(), kHeadGridSize.height(),
        kOverviewSize.width(), kOverviewSize.height());
    std::printf("  \"figures\": {\n");
    const auto& names = f.names();
    for (size_t i = 0; i < names.size(); ++i) {
        std::printf("    \"%s\": {\"median\": %.4f, \"runs\": [", names[i].c_str(),
                    f.medianOf(names[i]));
        const auto& runs = f.runs(names[i]);
        for (size_t r = 0; r < runs.size(); ++r) {
            std::printf("%s%.4f", r ? ", " : "", runs[r]);
        }
        std::printf("]}%s\n", i + 1 < names.size() ? "," : "");
    }
    std::printf("  }\n}\n");
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    const Options o = parse(argc, argv);
    const SyntheticAttention synth(o.seed);
    Figures figures;
    int paintsChecked = 0;
    for (int run = 0; run < o.repeats; ++run) {
        // Both scales in every run, alternating which goes first, so drift on a noisy machine hits
        // them alike.
        const bool logFirst = run % 2 == 1;
        for (const bool logScale : {logFirst, !logFirst}) {
            std::fprintf(stderr, "run %d/%d, %s scale\n", run + 1, o.repeats,
                         logScale ? "log" : "linear");
            runScenario(o, synth, logScale, figures, paintsChecked);
        }
        figures.add("app.entropy_all_heads_ms", entropyOfEveryHeadMs(o, synth));
    }
    if (o.json) {
        printJson(o, figures, paintsChecked);
    } else {
        printTable(o, figures, paintsChecked);
    }
    return 0;
}
