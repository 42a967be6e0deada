#include "startup_options.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <QStringList>

#include "workspace.h"

namespace inferlens::gui {

StartupCommandLine::StartupCommandLine() {
    // Qt's own switches (-platform, -reverse, -stylesheet) are single-dash words: read as compacted
    // short options, -reverse would be -r -e -v ... and show the version.
    parser_.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser_.setApplicationDescription(
        tr("Chat with a local language model and watch what happens inside."));
    parser_.addHelpOption();
    parser_.addVersionOption();
    parser_.addOptions({
        {"model", tr("Model to open."), "path"},
        {"prompt", tr("Send TEXT as the user's chat message."), "text"},
        {"ask", tr("Type TEXT into the chat's input, ready to send (not sent)."), "text"},
        {"max-tokens", tr("Tokens to generate at most."), "n"},
        {"workspace",
         tr("Open this workspace: chat, sampling, attention or teaching (default: the last one "
            "used)."),
         "name"},
        {"window-size",
         tr("Open the window at this size, e.g. 1366x768 (default: fitted to the screen)."), "WxH"},
        {"screenshot",
         tr("After generation, save the window as PNG, at the size it has (--window-size to "
            "choose)."),
         "file.png"},
        {"quit-after-generation", tr("Exit when the generation ends (0 on success).")},
        {"trace", tr("Replay a trace (JSON lines) instead of loading a model."), "file.jsonl"},
        {"remote",
         tr("Connect to a server with the OpenAI-compatible API (llama-server, vLLM, SGLang) "
            "instead of loading a model; the API key, if any, from INFERLENS_API_KEY."),
         "url"},
        {"remote-model", tr("The model to use on the --remote server (default: its first)."),
         "name"},
        {"panels",
         tr("Bring these docks (object names, comma-separated) to the front before the "
            "screenshot."),
         "names"},
        {"logit-lens", tr("Compute the logit lens.")},
        {"kv-experiment",
         tr("After the generation, run the KV cache on/off experiment with N tokens."), "n"},
        {"attention-kernels",
         tr("After the generation, time the fused and the reference attention kernels.")},
        {"tour-step", tr("Show step N of the guided tour."), "n"},
        {"device",
         tr("Run the model on cpu, cuda or cuda:N (default: the Device menu's last choice)."),
         "device"},
        {"beams", tr("Answer by beam search with N beams."), "n"},
        {"grammar", tr("The answer follows this grammar (a .json file: a JSON schema)."), "file"},
        {"kv-type", tr("Store the CPU's KV cache as f32, f16 or int8 (this run)."), "type"},
        {"window", tr("A sliding KV cache of the last N tokens (0: none; this run)."), "n"},
        {"sinks", tr("The first tokens a sliding KV cache keeps (default 4)."), "n"},
        {"compare-cache",
         tr("After the generation, compare the last step with an exact KV cache.")},
        {"lang", tr("Interface language: en, zh_CN or system."), "language"},
    });
}

bool StartupCommandLine::asksForHelpOrVersion() const {
    return parser_.isSet("help") || parser_.isSet("help-all") || parser_.isSet("version");
}

QSize parseWindowSize(const QString& text) {
    static const QRegularExpression form(
        QStringLiteral("^\\s*(\\d{1,5})\\s*[xX×]\\s*(\\d{1,5})\\s*$"));
    const QRegularExpressionMatch match = form.match(text);
    if (!match.hasMatch())
        return {};
    const QSize size(match.captured(1).toInt(), match.captured(2).toInt());
    if (size.width() < 320 || size.height() < 240 || size.width() > 8192 || size.height() > 8192)
        return {};
    return size;
}

QString StartupCommandLine::read(StartupOptions& options) const {
    const QCommandLineParser& p = parser_;
    options.model = p.value("model");
    options.prompt = p.value("prompt");
    options.draftQuestion = p.value("ask");
    options.maxTokens = p.value("max-tokens").toInt();
    options.screenshot = p.value("screenshot");
    options.quitAfterGeneration = p.isSet("quit-after-generation");
    options.trace = p.value("trace");
    options.remote = p.value("remote");
    options.remoteModel = p.value("remote-model");
    options.panels = p.value("panels").split(',', Qt::SkipEmptyParts);
    options.logitLens = p.isSet("logit-lens");
    options.kvExperiment = p.value("kv-experiment").toInt();
    options.attentionKernels = p.isSet("attention-kernels");
    options.device = p.value("device");
    options.tourStep = p.value("tour-step").toInt();
    options.beams = p.value("beams").toInt();
    options.grammar = p.value("grammar");
    options.kvType = p.value("kv-type");
    options.compareCache = p.isSet("compare-cache");

    if (p.isSet("workspace")) {
        const std::optional<Workspace> workspace = parseWorkspace(p.value("workspace"));
        if (!workspace) {
            QStringList choices;
            for (Workspace w : kWorkspaces)
                choices << workspaceKey(w);
            return tr("--workspace: no workspace '%1'; choose one of %2")
                .arg(p.value("workspace"), choices.join(QStringLiteral(", ")));
        }
        options.workspace = workspaceKey(*workspace);
    }
    if (p.isSet("window-size")) {
        options.windowSize = parseWindowSize(p.value("window-size"));
        if (!options.windowSize.isValid())
            return tr("--window-size: '%1' is not a window size; give WIDTHxHEIGHT in pixels, "
                      "from 320x240 to 8192x8192, e.g. 1366x768")
                .arg(p.value("window-size"));
    }
    for (const auto& [name, target] :
         {std::pair{"window", &options.window}, std::pair{"sinks", &options.sinks}}) {
        if (!p.isSet(name))
            continue;
        bool number = false;
        *target = p.value(name).toInt(&number);
        if (!number || *target < 0)
            return tr("--%1 needs a number of tokens, not '%2'")
                .arg(QString::fromLatin1(name), p.value(name));
    }
    return {};
}

}  // namespace inferlens::gui
