// Malformed model files: every broken input must be refused with an inferlens::Error whose message
// starts with the offending file's path and names the problem, without a crash, a hang or a huge
// allocation. Each case starts from a valid synthetic model (GGUF and Hugging Face forms, LLaMA and
// ChatGLM) and breaks one thing. GGUF files are re-serialised by a small byte builder in this file,
// so that a case can corrupt exactly one field; safetensors headers are edited as JSON.
//
// Every case opens its model in a forked child process (tests/support/child_process.h), under a
// 4 GiB address-space limit and with a time limit, so that a crash, a hang or an attempt to
// allocate gigabytes fails that case alone instead of taking the whole test down. A subset also
// runs `inferlens-cli info --model X`.

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"
#include "core/utf8.h"
#include "io/gguf_file.h"
#include "io/gguf_value.h"
#include "models/model_files.h"
#include "support/child_process.h"
#include "support/test_models.h"
#include "tokenizer/sentencepiece_model.h"
#include "tokenizer/synthetic_vocabulary.h"

using namespace inferlens;
namespace fs = std::filesystem;

static_assert(std::endian::native == std::endian::little, "the byte builders write host order");

namespace {

constexpr int kCaseTimeoutMs = 4000;
constexpr long kPeakRssLimitKiB = 1L << 20;  // 1 GiB
constexpr int64_t kSparseFileBytes = int64_t(2) << 30;
constexpr uint64_t k2Pow60 = uint64_t(1) << 60;
constexpr uint64_t k2Pow62 = uint64_t(1) << 62;

// ---------------------------------------------------------------------------------------------
// Little-endian byte building.

class Bytes {
  public:
    template <typename T>
    Bytes& put(T value) {
        data.append(reinterpret_cast<const char*>(&value), sizeof value);
        return *this;
    }
    Bytes& u8(uint8_t value) { return put(value); }
    Bytes& u32(uint32_t value) { return put(value); }
    Bytes& u64(uint64_t value) { return put(value); }
    Bytes& i64(int64_t value) { return put(value); }
    Bytes& raw(const QByteArray& bytes) {
        data.append(bytes);
        return *this;
    }
    Bytes& raw(std::string_view bytes) {
        data.append(bytes.data(), qsizetype(bytes.size()));
        return *this;
    }
    template <size_t N>
    Bytes& raw(const char (&text)[N]) {
        return raw(std::string_view(text, N - 1));
    }
    // A GGUF string: u64 length, then the bytes.
    Bytes& str(std::string_view text) { return u64(text.size()).raw(text); }

    QByteArray data;
};

void writeBytes(const std::string& path, const QByteArray& bytes) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
        throw std::runtime_error("cannot write " + path);
}

QByteArray readBytes(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read " + path);
    return file.readAll();
}

// ---------------------------------------------------------------------------------------------
// A GGUF file as parts that a case can corrupt one at a time, then serialise.

QByteArray encodeArray(const GgufArray& array) {
    Bytes out;
    out.u32(uint32_t(array.elementType)).u64(array.size());
    if (array.elementType == GgufType::String) {
        for (const auto& text : array.strings)
            out.str(text);
    } else if (array.elementType == GgufType::Array) {
        for (const auto& nested : array.arrays)
            out.raw(encodeArray(nested));
    } else {
        out.data.append(reinterpret_cast<const char*>(array.scalarBytes.data()),
                        qsizetype(array.scalarBytes.size()));
    }
    return out.data;
}

QByteArray encodeValue(const GgufValue& value) {
    Bytes out;
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>)
                out.str(v);
            else if constexpr (std::is_same_v<T, GgufArray>)
                out.raw(encodeArray(v));
            else if constexpr (std::is_same_v<T, bool>)
                out.u8(v ? 1 : 0);
            else
                out.put(v);
        },
        value.value);
    return out.data;
}

struct GgufKv {
    std::string key;
    uint32_t type = 0;
    QByteArray value;  // the value's bytes, after the type
    QByteArray raw;    // when set: the whole entry (key, type, value) exactly as written
};

struct GgufTensorInfo {
    std::string name;
    std::vector<int64_t> ne;  // GGUF order: contiguous dimension first; its size is n_dims
    uint32_t type = 0;
    uint64_t offset = 0;                 // relative to the data section
    std::optional<uint64_t> nameLength;  // a lying length for the name string
    std::optional<uint32_t> nDims;       // a lying dimension count
};

struct GgufLayout {
    qsizetype kvStart = 0;
    qsizetype tensorInfoStart = 0;
    qsizetype tensorInfoEnd = 0;
    qsizetype dataStart = 0;
    qsizetype end = 0;
};

struct GgufParts {
    QByteArray magic = "GGUF";
    uint32_t version = 3;
    std::optional<uint64_t> tensorCount;  // overrides tensors.size()
    std::optional<uint64_t> kvCount;      // overrides kvs.size()
    std::vector<GgufKv> kvs;
    std::vector<GgufTensorInfo> tensors;
    uint32_t padding = 32;  // the data section starts at a multiple of this
    QByteArray data;
    std::map<std::string, GgufValue> original;  // the valid model's values, for edits

    QByteArray serialize(GgufLayout* layout = nullptr) const {
        Bytes out;
        out.raw(magic).u32(version);
        out.u64(tensorCount.value_or(tensors.size())).u64(kvCount.value_or(kvs.size()));
        GgufLayout at;
        at.kvStart = out.data.size();
        for (const auto& kv : kvs) {
            if (!kv.raw.isEmpty())
                out.raw(kv.raw);
            else
                out.str(kv.key).u32(kv.type).raw(kv.value);
        }
        at.tensorInfoStart = out.data.size();
        for (const auto& tensor : tensors) {
            out.u64(tensor.nameLength.value_or(tensor.name.size())).raw(tensor.name);
            out.u32(tensor.nDims.value_or(uint32_t(tensor.ne.size())));
            for (int64_t extent : tensor.ne)
                out.i64(extent);
            out.u32(tensor.type).u64(tensor.offset);
        }
        at.tensorInfoEnd = out.data.size();
        while (out.data.size() % padding != 0)
            out.u8(0);
        at.dataStart = out.data.size();
        out.raw(data);
        at.end = out.data.size();
        if (layout != nullptr)
            *layout = at;
        return out.data;
    }

    GgufKv* findKv(std::string_view key) {
        for (auto& kv : kvs)
            if (kv.key == key)
                return &kv;
        return nullptr;
    }
    void set(const std::string& key, const GgufValue& value) {
        setRaw(key, uint32_t(value.type()), encodeValue(value));
    }
    void setRaw(const std::string& key, uint32_t type, const QByteArray& valueBytes) {
        GgufKv entry{key, type, valueBytes, {}};
        if (GgufKv* existing = findKv(key))
            *existing = entry;
        else
            kvs.push_back(entry);
    }
    void remove(std::string_view key) {
        std::erase_if(kvs, [&](const GgufKv& kv) { return kv.key == key; });
    }
    GgufTensorInfo& tensor(std::string_view name) {
        for (auto& info : tensors)
            if (info.name == name)
                return info;
        throw std::runtime_error("no tensor " + std::string(name));
    }
    void removeTensor(std::string_view name) {
        std::erase_if(tensors, [&](const GgufTensorInfo& info) { return info.name == name; });
    }
    GgufArray originalArray(const std::string& key) const {
        return std::get<GgufArray>(original.at(key).value);
    }
};

// Re-lays a valid GGUF file out as parts: same metadata in the same order, tensors in file order,
// each tensor's data aligned to 32 bytes, no trailing padding.
GgufParts partsOf(const std::string& path) {
    const GgufFile file(path);
    GgufParts parts;
    for (const auto& entry : file.metadata()) {
        parts.set(entry.key, entry.value);
        parts.original.emplace(entry.key, entry.value);
    }
    for (const TensorView& tensor : file.tensors()) {
        while (parts.data.size() % 32 != 0)
            parts.data.append('\0');
        GgufTensorInfo info;
        info.name = tensor.name;
        info.ne.assign(tensor.shape.rbegin(), tensor.shape.rend());
        info.type = dtypeInfo(tensor.dtype).ggmlType;
        info.offset = uint64_t(parts.data.size());
        parts.tensors.push_back(info);
        parts.data.append(reinterpret_cast<const char*>(tensor.data), qsizetype(tensor.byteCount));
    }
    return parts;
}

void setI32(GgufArray& array, size_t index, int32_t value) {
    std::memcpy(array.scalarBytes.data() + index * 4, &value, 4);
}

// ---------------------------------------------------------------------------------------------
// safetensors files as an editable JSON header plus data.

struct Safetensors {
    nlohmann::ordered_json header;
    QByteArray data;
};

Safetensors readSafetensors(const std::string& path) {
    const QByteArray bytes = readBytes(path);
    uint64_t length = 0;
    std::memcpy(&length, bytes.constData(), 8);
    Safetensors file;
    file.header = nlohmann::ordered_json::parse(bytes.mid(8, qsizetype(length)).toStdString());
    file.data = bytes.mid(8 + qsizetype(length));
    return file;
}

// Header text padded with spaces to a multiple of 8, as writers do.
void writeSafetensorsRaw(const std::string& path, std::string header, const QByteArray& data,
                         std::optional<uint64_t> headerLength = std::nullopt) {
    header.append((8 - header.size() % 8) % 8, ' ');
    Bytes out;
    out.u64(headerLength.value_or(header.size())).raw(header).raw(data);
    writeBytes(path, out.data);
}

void writeSafetensors(const std::string& path, const Safetensors& file) {
    writeSafetensorsRaw(path, file.header.dump(), file.data);
}

nlohmann::ordered_json readJson(const std::string& path) {
    return nlohmann::ordered_json::parse(readBytes(path).toStdString());
}

void writeJson(const std::string& path, const nlohmann::ordered_json& json) {
    writeBytes(path, QByteArray::fromStdString(json.dump(2)));
}

// A sentencepiece ModelProto written by hand, for tokenizers that only sentencepiece can judge.
class Proto {
  public:
    Proto& varint(uint32_t field, uint64_t value) {
        key(field, 0);
        rawVarint(value);
        return *this;
    }
    Proto& fixed32(uint32_t field, uint32_t value) {
        key(field, 5);
        bytes.append(reinterpret_cast<const char*>(&value), 4);
        return *this;
    }
    Proto& message(uint32_t field, const QByteArray& value) {
        key(field, 2);
        rawVarint(uint64_t(value.size()));
        bytes.append(value);
        return *this;
    }
    QByteArray bytes;

  private:
    void key(uint32_t field, uint32_t wireType) { rawVarint((uint64_t(field) << 3) | wireType); }
    void rawVarint(uint64_t value) {
        while (value >= 0x80) {
            bytes.append(char((value & 0x7f) | 0x80));
            value >>= 7;
        }
        bytes.append(char(value));
    }
};

QByteArray pieceProto(const std::string& piece, int type) {
    return Proto()
        .message(1, QByteArray::fromStdString(piece))
        .fixed32(2, 0)
        .varint(3, uint64_t(type))
        .bytes;
}

// ---------------------------------------------------------------------------------------------
// Opening a model in a child process.

struct Outcome {
    QString kind;  // "error", "accepted", "bad_alloc", "exception", "crash", "hang"
    QString message;
    long peakRssKiB = 0;
};

QString describe(const Outcome& outcome) {
    return outcome.kind + ": " + outcome.message;
}

Outcome openInChildProcess(const std::string& path) {
    const test::ChildOutcome child =
        test::runInChild([&] { const ModelFiles files = openModelFiles(path); }, kCaseTimeoutMs);
    Outcome outcome{QString::fromStdString(child.kind), QString::fromUtf8(child.message),
                    child.peakRssKiB};
    if (child.kind == "error" && !isValidUtf8(child.message))
        outcome.message += " [the message is not valid UTF-8]";
    return outcome;
}

// Every keyword must occur in the message; a keyword may list alternatives separated by '|'.
bool containsKeyword(const QString& message, const QString& keyword) {
    for (const QString& alternative : keyword.split('|'))
        if (message.contains(alternative, Qt::CaseInsensitive))
            return true;
    return false;
}

// ---------------------------------------------------------------------------------------------

struct BadModel {
    std::string open;     // what openModelFiles is given
    std::string badFile;  // the file (or directory) the message must start with
};

using Maker = std::function<BadModel(const std::string& dir)>;

}  // namespace

Q_DECLARE_METATYPE(Maker)

class TestMalformedFiles : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void validModelsOpen_data();
    void validModelsOpen();
    void malformedInputIsRefused_data();
    void malformedInputIsRefused();

  private:
    // The valid originals.
    std::string path(const char* name) const { return originals_.filePath(name).toStdString(); }
    const GgufParts& gguf(const std::string& arch) const {
        return arch == "llama" ? llamaGguf_ : glmGguf_;
    }
    // A copy of a valid Hugging Face directory ("llama", "chatglm" or "sharded") under `dir`.
    std::string copyHf(const std::string& dir, const std::string& which) const {
        const std::string target = dir + "/model";
        fs::copy(path(which == "llama"     ? "llama-hf"
                      : which == "chatglm" ? "glm-hf"
                                           : "llama-sharded"),
                 target, fs::copy_options::recursive);
        return target;
    }

    void addGgufCases();
    void addGgufModelCases();
    void addHfCases();
    void addShardAndTokenizerCases();
    void addCase(const std::string& name, const Maker& make, const QStringList& keywords,
                 bool viaCli = false) {
        QTest::newRow(name.c_str()) << make << keywords << viaCli;
    }
    // A GGUF case: `edit` corrupts the parts of a valid model, which are then written out.
    void addGguf(const std::string& name, const std::string& arch,
                 const std::function<void(GgufParts&)>& edit, const QStringList& keywords,
                 bool viaCli = false) {
        addCase(
            name,
            [this, arch, edit](const std::string& dir) {
                GgufParts parts = gguf(arch);
                edit(parts);
                const std::string file = dir + "/model.gguf";
                writeBytes(file, parts.serialize());
                return BadModel{file, file};
            },
            keywords, viaCli);
    }
    // A GGUF case given as the whole file's bytes.
    void addGgufBytes(const std::string& name, const std::function<QByteArray()>& bytes,
                      const QStringList& keywords, bool viaCli = false) {
        addCase(
            name,
            [bytes](const std::string& dir) {
                const std::string file = dir + "/model.gguf";
                writeBytes(file, bytes());
                return BadModel{file, file};
            },
            keywords, viaCli);
    }
    // A Hugging Face case: `edit` breaks a copy of a valid directory and returns the file that the
    // message must name, relative to the directory ("" for the directory itself).
    void addHf(const std::string& name, const std::string& which,
               const std::function<std::string(const std::string& modelDir)>& edit,
               const QStringList& keywords, bool viaCli = false) {
        addCase(
            name,
            [this, which, edit](const std::string& dir) {
                const std::string model = copyHf(dir, which);
                const std::string bad = edit(model);
                return BadModel{model, bad.empty() ? model : model + "/" + bad};
            },
            keywords, viaCli);
    }
    // An edit of config.json's JSON.
    void addConfig(const std::string& name, const std::string& which,
                   const std::function<void(nlohmann::ordered_json&)>& edit,
                   const QStringList& keywords, bool viaCli = false) {
        addHf(
            name, which,
            [edit](const std::string& model) {
                auto json = readJson(model + "/config.json");
                edit(json);
                writeJson(model + "/config.json", json);
                return std::string("config.json");
            },
            keywords, viaCli);
    }
    // An edit of model.safetensors (header and data).
    void addSafetensors(const std::string& name, const std::string& which,
                        const std::function<void(Safetensors&)>& edit, const QStringList& keywords,
                        bool viaCli = false) {
        addHf(
            name, which,
            [edit](const std::string& model) {
                const std::string file = model + "/model.safetensors";
                Safetensors st = readSafetensors(file);
                edit(st);
                writeSafetensors(file, st);
                return std::string("model.safetensors");
            },
            keywords, viaCli);
    }

    QTemporaryDir originals_;
    GgufParts llamaGguf_;
    GgufParts glmGguf_;
};

void TestMalformedFiles::initTestCase() {
    QVERIFY(originals_.isValid());
    SyntheticModelOptions options;
    options.layers = 2;
    options.hidden = 32;
    options.heads = 4;
    options.kvHeads = 2;
    options.ffn = 64;
    options.vocab = 320;
    options.context = 64;
    for (const std::string arch : {"llama", "chatglm"}) {
        options.architecture = arch;
        const std::string stem = arch == "llama" ? "llama" : "glm";
        options.format = ModelFormat::Gguf;
        test::writeSynthetic(originals_, stem + ".gguf", options);
        options.format = ModelFormat::HuggingFace;
        test::writeSynthetic(originals_, stem + "-hf", options);
    }
    llamaGguf_ = partsOf(path("llama.gguf"));
    glmGguf_ = partsOf(path("glm.gguf"));
    writeBytes(path("llama-rebuilt.gguf"), llamaGguf_.serialize());
    writeBytes(path("glm-rebuilt.gguf"), glmGguf_.serialize());

    // The same LLaMA model in two shards with an index, and one rewritten by readSafetensors /
    // writeSafetensors, so that the helpers the cases use are known to produce valid files.
    const Safetensors whole = readSafetensors(path("llama-hf") + "/model.safetensors");
    fs::copy(path("llama-hf"), path("llama-rewritten"), fs::copy_options::recursive);
    writeSafetensors(path("llama-rewritten") + "/model.safetensors", whole);
    fs::create_directory(path("llama-sharded"));
    fs::copy_file(path("llama-hf") + "/config.json", path("llama-sharded") + "/config.json");
    fs::copy_file(path("llama-hf") + "/tokenizer.model",
                  path("llama-sharded") + "/tokenizer.model");
    std::vector<std::string> names;
    for (const auto& [name, entry] : whole.header.items())
        if (name != "__metadata__")
            names.push_back(name);
    nlohmann::ordered_json weightMap = nlohmann::ordered_json::object();
    for (int shard = 0; shard < 2; ++shard) {
        const std::string shardName =
            "model-0000" + std::to_string(shard + 1) + "-of-00002.safetensors";
        Safetensors part;
        part.header["__metadata__"] = {{"format", "pt"}};
        const size_t begin = shard == 0 ? 0 : names.size() / 2;
        const size_t end = shard == 0 ? names.size() / 2 : names.size();
        for (size_t i = begin; i < end; ++i) {
            auto entry = whole.header.at(names[i]);
            const auto from = entry["data_offsets"][0].get<uint64_t>();
            const auto to = entry["data_offsets"][1].get<uint64_t>();
            entry["data_offsets"] = {part.data.size(), part.data.size() + (to - from)};
            part.data.append(whole.data.mid(qsizetype(from), qsizetype(to - from)));
            part.header[names[i]] = entry;
            weightMap[names[i]] = shardName;
        }
        writeSafetensors(path("llama-sharded") + "/" + shardName, part);
    }
    writeJson(path("llama-sharded") + "/model.safetensors.index.json",
              {{"metadata", {{"total_size", whole.data.size()}}}, {"weight_map", weightMap}});
}

void TestMalformedFiles::validModelsOpen_data() {
    QTest::addColumn<QString>("model");
    for (const char* name : {"llama.gguf", "glm.gguf", "llama-rebuilt.gguf", "glm-rebuilt.gguf",
                             "llama-hf", "glm-hf", "llama-rewritten", "llama-sharded"})
        QTest::newRow(name) << originals_.filePath(name);
}

// The originals, and the same models after passing through this test's builders unchanged, open
// cleanly: so every refusal below is caused by the one thing its case breaks.
void TestMalformedFiles::validModelsOpen() {
    QFETCH(QString, model);
    const Outcome outcome = openInChildProcess(model.toStdString());
    QVERIFY2(outcome.kind == "accepted", qPrintable(describe(outcome)));
    const test::CliResult cli = test::runCli({"info", "--model", model});
    QVERIFY2(cli.exitCode == 0, qPrintable(cli.standardError));
}

void TestMalformedFiles::malformedInputIsRefused_data() {
    QTest::addColumn<Maker>("make");
    QTest::addColumn<QStringList>("keywords");
    QTest::addColumn<bool>("viaCli");
    addGgufCases();
    addGgufModelCases();
    addHfCases();
    addShardAndTokenizerCases();
}

void TestMalformedFiles::malformedInputIsRefused() {
    QFETCH(Maker, make);
    QFETCH(QStringList, keywords);
    QFETCH(bool, viaCli);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    if (qEnvironmentVariableIsSet("INFERLENS_KEEP_BAD_FILES")) {
        dir.setAutoRemove(false);
        qInfo("kept in %s", qPrintable(dir.path()));
    }
    const BadModel bad = make(dir.path().toStdString());
    const QString badFile = QString::fromStdString(bad.badFile);

    const Outcome outcome = openInChildProcess(bad.open);
    QVERIFY2(outcome.kind == "error", qPrintable(describe(outcome)));
    const QString& message = outcome.message;
    QVERIFY2(message.startsWith(badFile + ": "),
             qPrintable("the message does not start with \"" + badFile + ": \": " + message));
    for (const QString& keyword : keywords)
        QVERIFY2(containsKeyword(message, keyword),
                 qPrintable("the message lacks \"" + keyword + "\": " + message));
    QVERIFY2(!message.contains('\n'), qPrintable("the message spans lines: " + message));
    QVERIFY2(!message.contains("not valid UTF-8]"), qPrintable(message));
    QVERIFY2(outcome.peakRssKiB < kPeakRssLimitKiB,
             qPrintable(QStringLiteral("peak RSS %1 MiB").arg(outcome.peakRssKiB / 1024)));

    if (!viaCli)
        return;
    const test::CliResult cli = test::runCli({"info", "--model", QString::fromStdString(bad.open)});
    QCOMPARE(cli.exitCode, 1);
    const QString& err = cli.standardError;
    QVERIFY2(err.startsWith("error: ") && err.endsWith('\n') && err.count('\n') == 1,
             qPrintable("stderr is not one \"error: \" line: " + err));
    QVERIFY2(err.startsWith("error: " + badFile + ": "), qPrintable(err));
    for (const QString& keyword : keywords)
        QVERIFY2(containsKeyword(err, keyword), qPrintable(err));
}

// ---------------------------------------------------------------------------------------------
// GGUF: the container format.

void TestMalformedFiles::addGgufCases() {
    addGgufBytes(
        "gguf/empty file", [] { return QByteArray(); }, {"magic|empty|truncated"}, true);
    addCase(
        "gguf/nonexistent path",
        [](const std::string& dir) {
            return BadModel{dir + "/missing.gguf", dir + "/missing.gguf"};
        },
        {"no such file"}, true);
    addCase("gguf/fifo instead of a file",
            [](const std::string& dir) {
                const std::string fifo = dir + "/model.gguf";
                if (::mkfifo(fifo.c_str(), 0600) != 0)
                    throw std::runtime_error("mkfifo failed");
                return BadModel{fifo, fifo};
            },
            {"regular file"});

    // Cut points in the valid LLaMA file; a cut inside the magic may also be called a bad magic.
    struct Cut {
        const char* name;
        std::function<qsizetype(const GgufLayout&)> at;
        QStringList keywords{"truncated|more than the file"};
    };
    const std::vector<Cut> cuts{
        {"gguf/truncated in magic",
         [](const GgufLayout&) { return qsizetype(3); },
         {"truncated|magic"}},
        {"gguf/truncated in header", [](const GgufLayout&) { return qsizetype(12); }},
        {"gguf/truncated after header", [](const GgufLayout& l) { return l.kvStart; }},
        {"gguf/truncated in first key", [](const GgufLayout& l) { return l.kvStart + 10; }},
        {"gguf/truncated in metadata",
         [](const GgufLayout& l) { return (l.kvStart + l.tensorInfoStart) / 2; }},
        {"gguf/truncated near end of metadata",
         [](const GgufLayout& l) { return l.tensorInfoStart - 3; }},
        {"gguf/truncated at tensor infos", [](const GgufLayout& l) { return l.tensorInfoStart; }},
        {"gguf/truncated in tensor infos",
         [](const GgufLayout& l) { return (l.tensorInfoStart + l.tensorInfoEnd) / 2; }},
        {"gguf/truncated just after tensor infos",
         [](const GgufLayout& l) { return l.tensorInfoEnd + 1; }},
        {"gguf/truncated in data", [](const GgufLayout& l) { return (l.dataStart + l.end) / 2; }},
        {"gguf/truncated by one byte", [](const GgufLayout& l) { return l.end - 1; }},
    };
    for (const Cut& cut : cuts) {
        addGgufBytes(
            cut.name,
            [this, at = cut.at] {
                GgufLayout layout;
                const QByteArray bytes = llamaGguf_.serialize(&layout);
                return bytes.left(at(layout));
            },
            cut.keywords, std::string_view(cut.name) == "gguf/truncated in data");
    }

    addGguf(
        "gguf/bad magic", "llama", [](GgufParts& g) { g.magic = "GGUG"; }, {"magic"}, true);
    addCase("gguf/safetensors file given as a GGUF file",
            [this](const std::string& dir) {
                const std::string file = dir + "/model.gguf";
                fs::copy_file(path("llama-hf") + "/model.safetensors", file);
                return BadModel{file, file};
            },
            {"magic"});
    for (const auto& [name, version] : std::vector<std::pair<const char*, uint32_t>>{
             {"gguf/version 0", 0},
             {"gguf/version 1", 1},
             {"gguf/version 4", 4},
             {"gguf/version 3 byte-swapped", 0x03000000u}}) {
        addGguf(
            name, "llama", [version = version](GgufParts& g) { g.version = version; },
            {"unsupported GGUF version", std::to_string(version).c_str()}, version == 4);
    }
    addGguf(
        "gguf/tensor count 2^62", "llama", [](GgufParts& g) { g.tensorCount = k2Pow62; },
        {"tensors", "more than the file"}, true);
    addGguf("gguf/tensor count 2^64-1", "llama", [](GgufParts& g) { g.tensorCount = ~uint64_t(0); },
            {"tensors", "more than the file"});
    addGguf("gguf/metadata count 2^62", "llama", [](GgufParts& g) { g.kvCount = k2Pow62; },
            {"metadata", "more than the file"});

    // Counts that pass a "fits in the file" check only because the file is huge (a sparse file of
    // 2 GiB here, a real multi-gigabyte model in the wild): reserving memory for them up front
    // would take many times the file's size.
    const auto sparse = [](const std::string& name, const std::function<QByteArray()>& header,
                           const QStringList& keywords) {
        return std::make_tuple(
            name, Maker([header](const std::string& dir) {
                const std::string file = dir + "/model.gguf";
                writeBytes(file, header());
                if (!QFile::resize(QString::fromStdString(file), kSparseFileBytes))
                    throw std::runtime_error("cannot make a sparse file");
                return BadModel{file, file};
            }),
            keywords);
    };
    const uint64_t sparseBody = uint64_t(kSparseFileBytes) - 24;
    for (const auto& [name, make, keywords] : {
             sparse("gguf/metadata count near file size / 12 (2 GiB sparse file)",
                    [=] { return Bytes().raw("GGUF").u32(3).u64(0).u64(sparseBody / 12).data; },
                    {"metadata"}),
             sparse("gguf/tensor count near file size / 28 (2 GiB sparse file)",
                    [=] { return Bytes().raw("GGUF").u32(3).u64(sparseBody / 28).u64(0).data; },
                    {"tensor"}),
             sparse("gguf/string array count near file size / 8 (2 GiB sparse file)",
                    [=] {
                        Bytes b;
                        b.raw("GGUF").u32(3).u64(0).u64(1).str("test.strings").u32(9).u32(8);
                        return b.u64((uint64_t(kSparseFileBytes) - b.data.size() - 8) / 8).data;
                    },
                    {"test.strings"}),
             sparse("gguf/nested array count near file size / 12 (2 GiB sparse file)",
                    [=] {
                        Bytes b;
                        b.raw("GGUF").u32(3).u64(0).u64(1).str("test.nested").u32(9).u32(9);
                        return b.u64((uint64_t(kSparseFileBytes) - b.data.size() - 8) / 12).data;
                    },
                    {"test.nested"}),
         })
        addCase(name, make, keywords);

    // Metadata.
    const auto frontRaw = [](const QByteArray& entry) {
        return [entry](GgufParts& g) { g.kvs.insert(g.kvs.begin(), GgufKv{"", 0, {}, entry}); };
    };
    addGguf("gguf/key length 2^60", "llama", frontRaw(Bytes().u64(k2Pow60).raw("general").data),
            {"truncated", "metadata key"});
    addGguf("gguf/empty key", "llama", frontRaw(Bytes().str("").u32(4).u32(1).data),
            {"metadata key", "empty"});
    addGguf("gguf/key not UTF-8", "llama",
            frontRaw(Bytes().str("bad\xff\xfekey").u32(4).u32(1).data), {"metadata key", "UTF-8"});
    addGguf("gguf/string value length 2^60", "llama",
            [](GgufParts& g) {
                g.setRaw("general.architecture", 8, Bytes().u64(k2Pow60).raw("llama").data);
            },
            {"truncated", "general.architecture"});
    addGguf(
        "gguf/unknown value type 13", "llama",
        [](GgufParts& g) { g.setRaw("general.name", 13, Bytes().u64(0).data); },
        {"unknown metadata value type 13", "general.name"}, true);
    addGguf("gguf/unknown value type 2^32-1", "llama",
            [](GgufParts& g) { g.setRaw("general.name", 0xffffffffu, Bytes().u64(0).data); },
            {"unknown metadata value type 4294967295"});
    addGguf("gguf/unknown array element type", "llama",
            [](GgufParts& g) { g.setRaw("test.array", 9, Bytes().u32(99).u64(1).u32(0).data); },
            {"unknown metadata value type 99", "test.array"});
    addGguf(
        "gguf/string array length 2^62", "llama",
        [](GgufParts& g) {
            g.setRaw("tokenizer.ggml.tokens", 9, Bytes().u32(8).u64(k2Pow62).str("<unk>").data);
        },
        {"tokenizer.ggml.tokens", "more than the file|absurd length"}, true);
    addGguf("gguf/u8 array length 2^62", "llama",
            [](GgufParts& g) { g.setRaw("test.bytes", 9, Bytes().u32(0).u64(k2Pow62).u8(1).data); },
            {"test.bytes", "more than the file|absurd length"});
    addGguf("gguf/u64 array length whose byte count wraps", "llama",
            [](GgufParts& g) {
                g.setRaw("test.u64s", 9, Bytes().u32(10).u64((uint64_t(1) << 61) + 1).u64(7).data);
            },
            {"test.u64s", "more than the file|absurd length"});
    addGguf("gguf/arrays nested 64 deep", "llama",
            [](GgufParts& g) {
                Bytes value;
                for (int i = 0; i < 64; ++i)
                    value.u32(9).u64(1);
                value.u32(4).u64(1).u32(7);
                g.setRaw("test.nested", 9, value.data.mid(4));
            },
            {"test.nested", "nested"});
    addGguf(
        "gguf/bool value 2", "llama",
        [](GgufParts& g) { g.setRaw("tokenizer.ggml.add_bos_token", 7, Bytes().u8(2).data); },
        {"tokenizer.ggml.add_bos_token", "bool"}, true);
    addGguf(
        "gguf/duplicate metadata key", "llama",
        [](GgufParts& g) { g.kvs.push_back(*g.findKv("llama.block_count")); },
        {"llama.block_count", "twice"}, true);
    addGguf(
        "gguf/alignment 48", "llama",
        [](GgufParts& g) { g.set("general.alignment", {uint32_t(48)}); },
        {"general.alignment", "power of two"}, true);
    addGguf("gguf/alignment 0", "llama",
            [](GgufParts& g) { g.set("general.alignment", {uint32_t(0)}); }, {"general.alignment"});
    addGguf("gguf/alignment 2^31", "llama",
            [](GgufParts& g) { g.set("general.alignment", {uint32_t(1) << 31}); },
            {"general.alignment"});
    addGguf("gguf/alignment a string", "llama",
            [](GgufParts& g) { g.set("general.alignment", {std::string("32")}); },
            {"general.alignment"});

    // Tensor infos.
    addGguf("gguf/tensor name length 2^60", "llama",
            [](GgufParts& g) { g.tensors[1].nameLength = k2Pow60; }, {"truncated", "tensor name"});
    addGguf("gguf/empty tensor name", "llama", [](GgufParts& g) { g.tensors[1].name = ""; },
            {"tensor #1", "empty"});
    addGguf("gguf/tensor name not UTF-8", "llama",
            [](GgufParts& g) { g.tensors[1].name = "blk.\xc0\xaf.x"; }, {"tensor #1", "UTF-8"});
    addGguf(
        "gguf/duplicate tensor name", "llama",
        [](GgufParts& g) { g.tensor("blk.0.attn_k.weight").name = "blk.0.attn_q.weight"; },
        {"blk.0.attn_q.weight", "twice"}, true);
    addGguf(
        "gguf/n_dims 0", "llama", [](GgufParts& g) { g.tensor("blk.0.attn_q.weight").ne = {}; },
        {"blk.0.attn_q.weight", "0 dimensions"}, true);
    addGguf("gguf/n_dims 5", "llama",
            [](GgufParts& g) {
                g.tensor("blk.0.attn_q.weight").ne = {32, 32, 1, 1, 1};
            },
            {"blk.0.attn_q.weight", "5 dimensions"});
    addGguf("gguf/n_dims 2^32-1", "llama",
            [](GgufParts& g) { g.tensor("blk.0.attn_q.weight").nDims = 0xffffffffu; },
            {"blk.0.attn_q.weight", "4294967295 dimensions"});
    for (const auto& [name, extent] : std::vector<std::pair<const char*, int64_t>>{
             {"gguf/dimension -1", -1},
             {"gguf/dimension 0", 0},
             {"gguf/dimension 2^62", int64_t(k2Pow62)},
             {"gguf/dimension INT64_MIN", std::numeric_limits<int64_t>::min()}}) {
        addGguf(
            name, "llama",
            [extent = extent](GgufParts& g) { g.tensor("blk.0.attn_q.weight").ne[1] = extent; },
            {"blk.0.attn_q.weight", "dimension", std::to_string(extent).c_str()}, extent == -1);
    }
    addGguf("gguf/dimension product 2^72", "llama",
            [](GgufParts& g) {
                g.tensor("blk.0.attn_q.weight").ne = {1 << 24, 1 << 24, 1 << 24};
            },
            {"blk.0.attn_q.weight", "dimension"});
    addGguf(
        "gguf/unknown tensor type 99", "llama",
        [](GgufParts& g) { g.tensor("blk.0.attn_q.weight").type = 99; },
        {"blk.0.attn_q.weight", "unknown tensor type 99"}, true);
    addGguf("gguf/unknown tensor type 2^32-1", "llama",
            [](GgufParts& g) { g.tensor("blk.0.attn_q.weight").type = 0xffffffffu; },
            {"blk.0.attn_q.weight", "unknown tensor type"});
    addGguf(
        "gguf/unsupported tensor type Q2_K", "llama",
        [](GgufParts& g) { g.tensor("blk.0.attn_q.weight").type = 10; },
        {"blk.0.attn_q.weight", "Q2_K", "not support"}, true);
    addGguf("gguf/unsupported tensor type Q8_1", "chatglm",
            [](GgufParts& g) { g.tensor("blk.1.ffn_down.weight").type = 9; },
            {"blk.1.ffn_down.weight", "Q8_1", "not support"});
    addGguf("gguf/Q4_K rows not whole super-blocks", "llama",
            [](GgufParts& g) {
                auto& query = g.tensor("blk.0.attn_q.weight");
                query.type = 12;
                query.ne = {64, 16};  // 64-value rows: a quarter of a super-block
            },
            {"blk.0.attn_q.weight", "row length 64", "q4_k blocks"});
    addGguf(
        "gguf/Q8_0 rows not whole blocks", "llama",
        [](GgufParts& g) {
            auto& query = g.tensor("blk.0.attn_q.weight");
            query.type = 8;
            query.ne = {16, 64};  // 16-value rows: half a block
        },
        {"blk.0.attn_q.weight", "row length 16", "q8_0 blocks"}, true);
    addGguf(
        "gguf/tensor offset not aligned", "llama", [](GgufParts& g) { g.tensors[2].offset += 4; },
        {"offset", "alignment"}, true);
    addGguf(
        "gguf/tensor data beyond the end", "llama",
        [](GgufParts& g) { g.tensors.back().offset += 4096; }, {"outside the file"}, true);
    addGguf("gguf/tensor offset 2^63", "llama",
            [](GgufParts& g) { g.tensors[0].offset = uint64_t(1) << 63; }, {"outside the file"});
    addGguf("gguf/tensor offset 2^64-32 (end wraps)", "llama",
            [](GgufParts& g) { g.tensors[0].offset = ~uint64_t(31); }, {"outside the file"});
    addGguf("gguf/tensor larger than its bytes", "llama",
            [](GgufParts& g) {
                auto& last = g.tensors.back();
                last.ne.back() *= 2;
            },
            {"outside the file"});
    addGguf(
        "gguf/two tensors overlap", "llama",
        [](GgufParts& g) {
            g.tensor("blk.0.attn_k.weight").offset = g.tensor("blk.0.attn_q.weight").offset + 32;
        },
        {"overlap"}, true);
    addGguf("gguf/two tensors at the same offset", "chatglm",
            [](GgufParts& g) { g.tensors[3].offset = g.tensors[2].offset; }, {"overlap"});
}

// ---------------------------------------------------------------------------------------------
// GGUF: the model inside (architecture, hyper-parameters, tensors, tokenizer).

void TestMalformedFiles::addGgufModelCases() {
    for (const std::string arch : {"llama", "chatglm"}) {
        const auto row = [&](const std::string& what) { return "gguf-" + arch + "/" + what; };
        const std::string p = arch + ".";
        const bool cli = arch == "llama";

        addGguf(
            row("missing general.architecture"), arch,
            [](GgufParts& g) { g.remove("general.architecture"); },
            {"general.architecture", "missing"}, cli);
        addGguf(row("general.architecture not a string"), arch,
                [](GgufParts& g) { g.set("general.architecture", {uint32_t(1)}); },
                {"general.architecture", "expected a string"});
        addGguf(
            row("unknown architecture"), arch,
            [](GgufParts& g) { g.set("general.architecture", {std::string("mamba")}); },
            {"mamba", "not supported"}, cli);

        // Tensors.
        const std::string someTensor =
            arch == "llama" ? "blk.1.ffn_down.weight" : "blk.0.attn_qkv.bias";
        addGguf(
            row("missing a layer tensor"), arch, [=](GgufParts& g) { g.removeTensor(someTensor); },
            {QString::fromStdString(someTensor), "missing"}, cli);
        addGguf(row("missing token_embd.weight"), arch,
                [](GgufParts& g) { g.removeTensor("token_embd.weight"); },
                {"token_embd.weight", "missing"});
        addGguf(row("missing output_norm.weight"), arch,
                [](GgufParts& g) { g.removeTensor("output_norm.weight"); },
                {"output_norm.weight", "missing"});
        addGguf(row("token_embd.weight 1-D"), arch,
                [](GgufParts& g) { g.tensor("token_embd.weight").ne = {32}; },
                {"token_embd.weight"});
        addGguf(
            row("embedding_length disagrees with the tensors"), arch,
            [=](GgufParts& g) { g.set(p + "embedding_length", {uint32_t(48)}); },
            {"shape", "configuration"}, cli);
        addGguf(row("feed_forward_length disagrees with the tensors"), arch,
                [=](GgufParts& g) { g.set(p + "feed_forward_length", {uint32_t(96)}); },
                {"ffn", "shape", "configuration"});
        addGguf(row("a tensor with fewer rows than the configuration"), arch,
                [](GgufParts& g) { g.tensor("blk.1.attn_output.weight").ne[1] = 16; },
                {"blk.1.attn_output.weight", "shape", "configuration"});
        addGguf(row("vocab_size disagrees with token_embd.weight"), arch,
                [=](GgufParts& g) { g.set(p + "vocab_size", {uint32_t(400)}); },
                {"vocab_size", "token_embd.weight"});

        // Hyper-parameters: missing, mistyped, absurd, inconsistent.
        for (const char* key :
             {"block_count", "embedding_length", "attention.head_count", "feed_forward_length",
              "context_length", "attention.layer_norm_rms_epsilon"}) {
            addGguf(
                row(std::string("missing ") + key), arch, [=](GgufParts& g) { g.remove(p + key); },
                {QString::fromStdString(p + key), "missing"},
                cli && std::string(key) == "block_count");
        }
        addGguf(
            row("block_count a string"), arch,
            [=](GgufParts& g) { g.set(p + "block_count", {std::string("2")}); },
            {QString::fromStdString(p + "block_count"), "expected an integer"}, cli);
        addGguf(row("feed_forward_length an array"), arch,
                [=](GgufParts& g) { g.set(p + "feed_forward_length", {GgufArray::ofInt32({64})}); },
                {QString::fromStdString(p + "feed_forward_length"), "integer"});
        addGguf(row("rms epsilon a string"), arch,
                [=](GgufParts& g) {
                    g.set(p + "attention.layer_norm_rms_epsilon", {std::string("1e-5")});
                },
                {"layer_norm_rms_epsilon", "expected a number"});
        addGguf(row("context_length u64 above INT64_MAX"), arch,
                [=](GgufParts& g) { g.set(p + "context_length", {~uint64_t(0)}); },
                {"context_length"});
        addGguf(
            row("head_count not a multiple of head_count_kv"), arch,
            [=](GgufParts& g) { g.set(p + "attention.head_count_kv", {uint32_t(3)}); },
            {"not a multiple", "KV head count"}, cli);
        addGguf(row("head_count_kv 0"), arch,
                [=](GgufParts& g) { g.set(p + "attention.head_count_kv", {uint32_t(0)}); },
                {"KV head count"});
        addGguf(row("head_count_kv above head_count"), arch,
                [=](GgufParts& g) { g.set(p + "attention.head_count_kv", {uint32_t(8)}); },
                {"KV head count"});
        addGguf(row("head_count 0"), arch,
                [=](GgufParts& g) { g.set(p + "attention.head_count", {uint32_t(0)}); },
                {"head_count|head count"});
        addGguf(row("head_count -4"), arch,
                [=](GgufParts& g) { g.set(p + "attention.head_count", {int32_t(-4)}); },
                {"head_count|head count"});
        addGguf(row("block_count 0"), arch,
                [=](GgufParts& g) { g.set(p + "block_count", {uint32_t(0)}); }, {"layer count"});
        addGguf(row("block_count 2^40"), arch,
                [=](GgufParts& g) { g.set(p + "block_count", {uint64_t(1) << 40}); },
                {"layer count"});
        addGguf(row("embedding_length 2^62"), arch,
                [=](GgufParts& g) { g.set(p + "embedding_length", {int64_t(k2Pow62)}); },
                {"hidden size"});
        addGguf(row("context_length 2^62"), arch,
                [=](GgufParts& g) { g.set(p + "context_length", {int64_t(k2Pow62)}); },
                {"context length"});
        addGguf(row("context_length -1"), arch,
                [=](GgufParts& g) { g.set(p + "context_length", {int32_t(-1)}); },
                {"context length"});
        addGguf(row("key_length 0"), arch,
                [=](GgufParts& g) {
                    g.set(p + "attention.key_length", {uint32_t(0)});
                    g.set(p + "attention.value_length", {uint32_t(0)});
                },
                {"head dimension"});
        addGguf(row("key_length odd"), arch,
                [=](GgufParts& g) {
                    g.set(p + "attention.key_length", {uint32_t(7)});
                    g.set(p + "attention.value_length", {uint32_t(7)});
                    g.set(p + "rope.dimension_count", {uint32_t(2)});
                },
                {"even"});
        addGguf(row("key_length differs from value_length"), arch,
                [=](GgufParts& g) { g.set(p + "attention.value_length", {uint32_t(16)}); },
                {"key_length", "value_length"});
        addGguf(row("rope.dimension_count above the head dimension"), arch,
                [=](GgufParts& g) { g.set(p + "rope.dimension_count", {uint32_t(1000)}); },
                {"RoPE dimensions"});
        addGguf(row("rms epsilon 0"), arch,
                [=](GgufParts& g) { g.set(p + "attention.layer_norm_rms_epsilon", {0.0f}); },
                {"epsilon"});
        addGguf(row("rope.freq_base NaN"), arch,
                [=](GgufParts& g) {
                    g.set(p + "rope.freq_base", {std::numeric_limits<float>::quiet_NaN()});
                },
                {"RoPE base"});
        addGguf(row("rope.scaling.type linear without a factor"), arch,
                [=](GgufParts& g) { g.set(p + "rope.scaling.type", {std::string("linear")}); },
                {"rope.scaling.factor is missing"});
        addGguf(row("rope.scaling.type yarn"), arch,
                [=](GgufParts& g) { g.set(p + "rope.scaling.type", {std::string("yarn")}); },
                {"'yarn'", "not supported"});

        // Tokenizer.
        addGguf(
            row("tokenizer.ggml.model rwkv"), arch,
            [](GgufParts& g) { g.set("tokenizer.ggml.model", {std::string("rwkv")}); },
            {"tokenizer.ggml.model", "rwkv", "not supported"}, cli);
        addGguf(
            row("tokenizer.ggml.model gpt2 without merges"), arch,
            [](GgufParts& g) { g.set("tokenizer.ggml.model", {std::string("gpt2")}); },
            {"tokenizer.ggml.merges", "missing"}, cli);
        addGguf(row("tokenizer.ggml.model not a string"), arch,
                [](GgufParts& g) { g.set("tokenizer.ggml.model", {uint32_t(1)}); },
                {"tokenizer.ggml.model", "expected a string"});
        addGguf(row("tokenizer.ggml.tokens missing"), arch,
                [](GgufParts& g) { g.remove("tokenizer.ggml.tokens"); }, {"tokenizer.ggml.tokens"});
        addGguf(row("tokenizer.ggml.tokens an i32 array"), arch,
                [](GgufParts& g) {
                    g.set("tokenizer.ggml.tokens", {GgufArray::ofInt32({1, 2})});
                },
                {"tokenizer.ggml.tokens", "array of string"});
        addGguf(
            row("tokenizer scores shorter than tokens"), arch,
            [](GgufParts& g) {
                GgufArray scores = g.originalArray("tokenizer.ggml.scores");
                scores.scalarBytes.resize(scores.scalarBytes.size() - 4);
                g.set("tokenizer.ggml.scores", {scores});
            },
            {"differ in length"}, cli);
        addGguf(row("tokenizer token_type longer than tokens"), arch,
                [](GgufParts& g) {
                    GgufArray types = g.originalArray("tokenizer.ggml.token_type");
                    types.scalarBytes.resize(types.scalarBytes.size() + 4, std::byte{1});
                    g.set("tokenizer.ggml.token_type", {types});
                },
                {"differ in length"});
        addGguf(
            row("duplicate token"), arch,
            [](GgufParts& g) {
                GgufArray tokens = g.originalArray("tokenizer.ggml.tokens");
                tokens.strings[280] = tokens.strings[279];
                g.set("tokenizer.ggml.tokens", {tokens});
            },
            {"token 280", "twice"}, cli);
        // Two unknown tokens are no longer refused: Phi-3 marks its added tokens unknown, and
        // llama.cpp reads them as control tokens (test_bpe_tokenizer checks that we do too).
        addGguf(row("no unknown token"), arch,
                [](GgufParts& g) {
                    GgufArray types = g.originalArray("tokenizer.ggml.token_type");
                    setI32(types, 0, int32_t(PieceType::Normal));
                    g.set("tokenizer.ggml.token_type", {types});
                },
                {"0 unknown tokens"});
        addGguf(row("empty token"), arch,
                [](GgufParts& g) {
                    GgufArray tokens = g.originalArray("tokenizer.ggml.tokens");
                    tokens.strings[280] = "";
                    g.set("tokenizer.ggml.tokens", {tokens});
                },
                {"token 280", "empty"});
        addGguf(row("token type 9"), arch,
                [](GgufParts& g) {
                    GgufArray types = g.originalArray("tokenizer.ggml.token_type");
                    setI32(types, 280, 9);
                    g.set("tokenizer.ggml.token_type", {types});
                },
                {"token 280", "token type 9"});
        addGguf(row("malformed byte token"), arch,
                [](GgufParts& g) {
                    GgufArray tokens = g.originalArray("tokenizer.ggml.tokens");
                    tokens.strings[3] = "<0x0>";
                    g.set("tokenizer.ggml.tokens", {tokens});
                },
                {"token 3", "<0xXX>"});
        addGguf(row("token not UTF-8"), arch,
                [](GgufParts& g) {
                    GgufArray tokens = g.originalArray("tokenizer.ggml.tokens");
                    tokens.strings[280] = "\xff\xfe";
                    g.set("tokenizer.ggml.tokens", {tokens});
                },
                {"token 280|tokenizer.ggml.tokens", "UTF-8"});
        addGguf(row("bos_token_id outside the vocabulary"), arch,
                [](GgufParts& g) { g.set("tokenizer.ggml.bos_token_id", {uint32_t(100000)}); },
                {"BOS"});
        addGguf(row("more tokens than embedding rows"), arch,
                [](GgufParts& g) {
                    GgufArray tokens = g.originalArray("tokenizer.ggml.tokens");
                    GgufArray scores = g.originalArray("tokenizer.ggml.scores");
                    GgufArray types = g.originalArray("tokenizer.ggml.token_type");
                    for (int i = 0; i < 10; ++i) {
                        tokens.strings.push_back("extra" + std::to_string(i));
                        scores.scalarBytes.resize(scores.scalarBytes.size() + 4, std::byte{0});
                        types.scalarBytes.resize(types.scalarBytes.size() + 4, std::byte{0});
                        setI32(types, tokens.strings.size() - 1, int32_t(PieceType::UserDefined));
                    }
                    g.set("tokenizer.ggml.tokens", {tokens});
                    g.set("tokenizer.ggml.scores", {scores});
                    g.set("tokenizer.ggml.token_type", {types});
                },
                {"330 tokens", "320"});
    }
}

// ---------------------------------------------------------------------------------------------
// Hugging Face directories: config.json and model.safetensors.

void TestMalformedFiles::addHfCases() {
    addHf(
        "hf/missing config.json", "llama",
        [](const std::string& model) {
            fs::remove(model + "/config.json");
            return std::string();
        },
        {"config.json"}, true);
    addCase(
        "hf/model.safetensors given instead of its directory",
        [this](const std::string& dir) {
            const std::string model = copyHf(dir, "llama") + "/model.safetensors";
            return BadModel{model, model};
        },
        {"directory"}, true);
    addCase("hf/config.json given instead of its directory",
            [this](const std::string& dir) {
                const std::string model = copyHf(dir, "llama") + "/config.json";
                return BadModel{model, model};
            },
            {"directory"});
    const auto replaceConfig = [](const QByteArray& bytes) {
        return [bytes](const std::string& model) {
            writeBytes(model + "/config.json", bytes);
            return std::string("config.json");
        };
    };
    addHf("hf/config.json empty", "llama", replaceConfig(""), {"invalid JSON"}, true);
    addHf("hf/config.json cut in half", "llama",
          [](const std::string& model) {
              const QByteArray text = readBytes(model + "/config.json");
              writeBytes(model + "/config.json", text.left(text.size() / 2));
              return std::string("config.json");
          },
          {"invalid JSON"});
    addHf("hf/config.json invalid UTF-8", "llama",
          replaceConfig("{\"model_type\": \"lla\xff\xfema\", \"hidden_size\": 32}"),
          {"invalid JSON", "UTF-8"}, true);
    addHf("hf/config.json an array", "llama", replaceConfig("[1, 2, 3]"), {"object"}, true);
    addHf("hf/config.json duplicate key", "llama",
          replaceConfig("{\"model_type\": \"llama\", \"model_type\": \"llama\"}"),
          {"model_type", "twice"});
    addHf("hf/config.json a directory", "llama",
          [](const std::string& model) {
              fs::remove(model + "/config.json");
              fs::create_directory(model + "/config.json");
              return std::string("config.json");
          },
          {"regular file"});

    for (const std::string arch : {"llama", "chatglm"}) {
        const auto row = [&](const std::string& what) { return "hf-" + arch + "/" + what; };
        const bool cli = arch == "llama";
        const bool llama = arch == "llama";
        const std::string layers = llama ? "num_hidden_layers" : "num_layers";
        const std::string ffn = llama ? "intermediate_size" : "ffn_hidden_size";
        const std::string vocab = llama ? "vocab_size" : "padded_vocab_size";
        const std::string context = llama ? "max_position_embeddings" : "seq_length";
        const std::string headDim = llama ? "head_dim" : "kv_channels";

        addConfig(row("model_type missing"), arch, [](auto& j) { j.erase("model_type"); },
                  {"model_type", "missing"});
        addConfig(
            row("model_type unknown"), arch, [](auto& j) { j["model_type"] = "gpt2"; },
            {"gpt2", "not supported"}, cli);
        addConfig(row("model_type a number"), arch, [](auto& j) { j["model_type"] = 42; },
                  {"model_type"});
        for (const std::string& key : {layers, std::string("hidden_size"),
                                       std::string("num_attention_heads"), ffn, vocab, context}) {
            addConfig(
                row("missing " + key), arch, [key](auto& j) { j.erase(key); },
                {QString::fromStdString(key), "missing"}, cli && key == "hidden_size");
        }
        addConfig(
            row("layer count -1"), arch, [=](auto& j) { j[layers] = -1; }, {"layer count"}, cli);
        addConfig(row("layer count a string"), arch, [=](auto& j) { j[layers] = "2"; },
                  {QString::fromStdString(layers), "must be an integer"});
        addConfig(row("hidden_size 2^62"), arch, [](auto& j) { j["hidden_size"] = k2Pow62; },
                  {"hidden size"});
        addConfig(row("hidden_size 32.5"), arch, [](auto& j) { j["hidden_size"] = 32.5; },
                  {"hidden_size", "integer"});
        // Edited as text: dumping such a value recurses once per level.
        addHf(row("hidden_size a 2^20-deep array"), arch,
              [](const std::string& model) {
                  std::string text = readBytes(model + "/config.json").toStdString();
                  const std::string key = "\"hidden_size\": ";
                  const size_t begin = text.find(key) + key.size();
                  text.replace(begin, text.find_first_of(",\n}", begin) - begin,
                               std::string(1 << 20, '[') + std::string(1 << 20, ']'));
                  writeBytes(model + "/config.json", QByteArray::fromStdString(text));
                  return std::string("config.json");
              },
              {"nested"});
        addConfig(row("ffn size 2^40"), arch, [=](auto& j) { j[ffn] = uint64_t(1) << 40; },
                  {"feed-forward"});
        addConfig(row("vocab size 2^64-1"), arch, [=](auto& j) { j[vocab] = ~uint64_t(0); },
                  {QString::fromStdString(vocab), "too large"});
        addConfig(row("context -5"), arch, [=](auto& j) { j[context] = -5; }, {"context length"});
        addConfig(row("num_attention_heads 0"), arch, [](auto& j) { j["num_attention_heads"] = 0; },
                  {"num_attention_heads|head count"});
        addConfig(row("head dim odd"), arch, [=](auto& j) { j[headDim] = 7; }, {"even"});
        addConfig(row("head dim 0"), arch, [=](auto& j) { j[headDim] = 0; }, {"head dimension"});
        addHf(row("hidden_size disagrees with the tensors"), arch,
              [](const std::string& model) {
                  auto json = readJson(model + "/config.json");
                  json["hidden_size"] = 48;
                  writeJson(model + "/config.json", json);
                  return std::string("model.safetensors");
              },
              {"shape", "configuration"});
        if (llama) {
            addConfig(row("num_key_value_heads 3"), arch,
                      [](auto& j) { j["num_key_value_heads"] = 3; }, {"not a multiple"});
            addConfig(row("rms_norm_eps a string"), arch,
                      [](auto& j) { j["rms_norm_eps"] = "tiny"; }, {"rms_norm_eps", "number"});
            addConfig(row("tie_word_embeddings a string"), arch,
                      [](auto& j) { j["tie_word_embeddings"] = "yes"; },
                      {"tie_word_embeddings", "true or false"});
            addConfig(row("rope_scaling yarn"), arch,
                      [](auto& j) {
                          j["rope_scaling"] = {{"type", "yarn"}, {"factor", 2.0}};
                      },
                      {"rope_scaling", "'yarn' is not supported"});
        } else {
            addConfig(row("multi_query_group_num 3"), arch,
                      [](auto& j) { j["multi_query_group_num"] = 3; }, {"not a multiple"});
            addConfig(row("multi_query_group_num missing"), arch,
                      [](auto& j) { j.erase("multi_query_group_num"); },
                      {"multi_query_group_num", "missing"});
            addConfig(row("add_bias_linear true"), arch,
                      [](auto& j) { j["add_bias_linear"] = true; },
                      {"add_bias_linear", "not supported"});
        }

        // model.safetensors.
        const std::string embedding =
            llama ? "model.embed_tokens.weight" : "transformer.embedding.word_embeddings.weight";
        const std::string norm =
            llama ? "model.norm.weight" : "transformer.encoder.final_layernorm.weight";
        const std::string layerNorm0 = llama
                                           ? "model.layers.0.input_layernorm.weight"
                                           : "transformer.encoder.layers.0.input_layernorm.weight";
        const std::string layerNorm1 = llama
                                           ? "model.layers.1.input_layernorm.weight"
                                           : "transformer.encoder.layers.1.input_layernorm.weight";
        addHf(
            row("model.safetensors missing"), arch,
            [](const std::string& model) {
                fs::remove(model + "/model.safetensors");
                return std::string();
            },
            {"model.safetensors"}, cli);
        addHf(row("model.safetensors a directory"), arch,
              [](const std::string& model) {
                  fs::remove(model + "/model.safetensors");
                  fs::create_directory(model + "/model.safetensors");
                  return std::string("model.safetensors");
              },
              {"regular file"});
        const auto cut = [](std::function<qsizetype(qsizetype size, qsizetype headerEnd)> at) {
            return [at](const std::string& model) {
                const std::string file = model + "/model.safetensors";
                const QByteArray bytes = readBytes(file);
                uint64_t length = 0;
                std::memcpy(&length, bytes.constData(), 8);
                writeBytes(file, bytes.left(at(bytes.size(), qsizetype(8 + length))));
                return std::string("model.safetensors");
            };
        };
        addHf(row("safetensors empty"), arch, cut([](qsizetype, qsizetype) { return 0; }),
              {"truncated"});
        addHf(row("safetensors truncated in the length"), arch,
              cut([](qsizetype, qsizetype) { return 5; }), {"truncated"});
        addHf(row("safetensors truncated in the header"), arch,
              cut([](qsizetype, qsizetype end) { return end / 2; }),
              {"header length", "truncated"});
        addHf(row("safetensors truncated at the data"), arch,
              cut([](qsizetype, qsizetype end) { return end; }), {"outside", "truncated"});
        addHf(row("safetensors truncated in the data"), arch,
              cut([](qsizetype size, qsizetype) { return size - 100; }), {"outside", "truncated"},
              cli);
        const auto rewriteHeader =
            [](std::function<void(Safetensors&, std::string&, std::optional<uint64_t>&)> edit) {
                return [edit](const std::string& model) {
                    const std::string file = model + "/model.safetensors";
                    Safetensors st = readSafetensors(file);
                    std::string header = st.header.dump();
                    std::optional<uint64_t> length;
                    edit(st, header, length);
                    writeSafetensorsRaw(file, header, st.data, length);
                    return std::string("model.safetensors");
                };
            };
        addHf(row("safetensors header length 2^62"), arch,
              rewriteHeader([](Safetensors&, std::string&, std::optional<uint64_t>& length) {
                  length = k2Pow62;
              }),
              {"header length"}, cli);
        addHf(row("safetensors header length past the end"), arch,
              rewriteHeader(
                  [](Safetensors& st, std::string& header, std::optional<uint64_t>& length) {
                      length = header.size() + (8 - header.size() % 8) % 8 + st.data.size() + 1;
                  }),
              {"header length"});
        addHf(row("safetensors header length 0"), arch,
              rewriteHeader(
                  [](Safetensors&, std::string&, std::optional<uint64_t>& length) { length = 0; }),
              {"invalid JSON"});
        addHf(row("safetensors header not JSON"), arch,
              rewriteHeader([](Safetensors&, std::string& header, std::optional<uint64_t>&) {
                  header.resize(header.size() / 2);
              }),
              {"invalid JSON"});
        addHf(row("safetensors header an array"), arch,
              rewriteHeader([](Safetensors&, std::string& header, std::optional<uint64_t>&) {
                  header = "[]";
              }),
              {"object"});
        addHf(row("safetensors header invalid UTF-8"), arch,
              rewriteHeader([](Safetensors&, std::string& header, std::optional<uint64_t>&) {
                  header.insert(header.find("__metadata__"), "\xc3\x28");
              }),
              {"invalid JSON", "UTF-8"});
        addHf(row("safetensors header duplicate tensor"), arch,
              rewriteHeader([=](Safetensors& st, std::string& header, std::optional<uint64_t>&) {
                  header.pop_back();
                  header += ",\"" + norm + "\":" + st.header[norm].dump() + "}";
              }),
              {"twice"});
        addSafetensors(
            row("dtype F64"), arch, [=](Safetensors& st) { st.header[norm]["dtype"] = "F64"; },
            {QString::fromStdString(norm), "F64", "not support"}, cli);
        addSafetensors(row("dtype I8"), arch,
                       [=](Safetensors& st) { st.header[norm]["dtype"] = "I8"; },
                       {QString::fromStdString(norm), "I8"});
        addSafetensors(row("dtype missing"), arch,
                       [=](Safetensors& st) { st.header[norm].erase("dtype"); },
                       {QString::fromStdString(norm), "dtype"});
        addSafetensors(row("entry not an object"), arch,
                       [=](Safetensors& st) { st.header[norm] = 5; },
                       {QString::fromStdString(norm), "not an object"});
        addSafetensors(
            row("data_offsets past the data"), arch,
            [=](Safetensors& st) { st.header[norm]["data_offsets"][1] = st.data.size() + 4; },
            {QString::fromStdString(norm), "outside"}, cli);
        addSafetensors(row("data_offsets begin after end"), arch,
                       [=](Safetensors& st) {
                           auto& offsets = st.header[norm]["data_offsets"];
                           offsets = {offsets[1], offsets[0]};
                       },
                       {QString::fromStdString(norm), "data_offsets"});
        addSafetensors(row("data_offsets 2^64-1"), arch,
                       [=](Safetensors& st) {
                           st.header[norm]["data_offsets"] = {0, ~uint64_t(0)};
                       },
                       {QString::fromStdString(norm), "outside"});
        addSafetensors(row("data_offsets negative"), arch,
                       [=](Safetensors& st) { st.header[norm]["data_offsets"][0] = -8; },
                       {QString::fromStdString(norm), "data_offsets"});
        addSafetensors(row("data_offsets three numbers"), arch,
                       [=](Safetensors& st) { st.header[norm]["data_offsets"].push_back(0); },
                       {QString::fromStdString(norm), "data_offsets"});
        addSafetensors(
            row("data_offsets size disagrees with the shape"), arch,
            [=](Safetensors& st) {
                auto& offsets = st.header[norm]["data_offsets"];
                offsets[1] = offsets[1].get<uint64_t>() - 4;
            },
            {QString::fromStdString(norm), "needs"}, cli);
        addSafetensors(
            row("two tensors overlap"), arch,
            [=](Safetensors& st) {
                st.header[layerNorm1]["data_offsets"] = st.header[layerNorm0]["data_offsets"];
            },
            {"overlap"}, cli);
        addSafetensors(row("shape with a negative dimension"), arch,
                       [=](Safetensors& st) { st.header[norm]["shape"] = {-32}; },
                       {QString::fromStdString(norm), "dimension"});
        addSafetensors(row("shape 2^30 x 2^30"), arch,
                       [=](Safetensors& st) {
                           st.header[norm]["shape"] = {1 << 30, 1 << 30};
                       },
                       {QString::fromStdString(norm), "shape"});
        addSafetensors(
            row("shape 9-D"), arch,
            [=](Safetensors& st) { st.header[norm]["shape"] = {1, 1, 1, 1, 1, 1, 1, 2, 16}; },
            {QString::fromStdString(norm), "shape"});
        addHf(row("shape a 2^20-deep array"), arch,
              rewriteHeader([=](Safetensors& st, std::string& header, std::optional<uint64_t>&) {
                  st.header[norm]["shape"] = "DEEP";
                  header = st.header.dump();
                  header.replace(header.find("\"DEEP\""), 6,
                                 "[" + std::string(1 << 20, '[') + std::string(1 << 20, ']') + "]");
              }),
              {"nested"});
        addSafetensors(
            row("shape disagrees with the configuration"), arch,
            [=](Safetensors& st) {
                st.header[norm]["shape"] = {16, 2};
            },
            {QString::fromStdString(norm), "shape", "configuration"}, cli);
        addHf(
            row("missing tensor"), arch,
            [=](const std::string& model) {
                const std::string file = model + "/model.safetensors";
                Safetensors st = readSafetensors(file);
                st.header.erase(embedding);
                writeSafetensors(file, st);
                return std::string();
            },
            {QString::fromStdString(embedding), "missing"}, cli);
    }
}

// ---------------------------------------------------------------------------------------------
// Sharded Hugging Face directories and tokenizer.model.

void TestMalformedFiles::addShardAndTokenizerCases() {
    const std::string shard1 = "model-00001-of-00002.safetensors";
    const std::string shard2 = "model-00002-of-00002.safetensors";
    const std::string index = "model.safetensors.index.json";
    const auto editIndex = [=](std::function<std::string(nlohmann::ordered_json&)> edit) {
        return [=](const std::string& model) {
            auto json = readJson(model + "/" + index);
            const std::string bad = edit(json);
            writeJson(model + "/" + index, json);
            return bad;
        };
    };
    // The first tensor that the index places in the second shard.
    const auto inShard2 = [=](const nlohmann::ordered_json& json) {
        for (const auto& [tensor, shard] : json.at("weight_map").items())
            if (shard == shard2)
                return tensor;
        throw std::runtime_error("no tensor in shard 2");
    };
    addHf("sharded/index names a missing shard", "sharded", editIndex([=](auto& json) {
              json["weight_map"][inShard2(json)] = "model-00003-of-00003.safetensors";
              return std::string("model-00003-of-00003.safetensors");
          }),
          {"cannot open|no such file"}, true);
    for (const auto& [name, shard] : std::vector<std::pair<const char*, std::string>>{
             {"sharded/index shard path with ..", "../" + shard1},
             {"sharded/index shard path with a directory", "sub/" + shard1},
             {"sharded/index shard path absolute", "/etc/passwd"},
             {"sharded/index shard path ..", ".."},
             {"sharded/index shard path empty", ""}}) {
        addHf(name, "sharded", editIndex([=, shard = shard](auto& json) {
                  json["weight_map"][inShard2(json)] = shard;
                  return index;
              }),
              {"invalid shard"}, shard == "../" + shard1);
    }
    addHf("sharded/index shard a directory", "sharded",
          [=](const std::string& model) {
              fs::create_directory(model + "/subdir");
              auto json = readJson(model + "/" + index);
              json["weight_map"][inShard2(json)] = "subdir";
              writeJson(model + "/" + index, json);
              return std::string("subdir");
          },
          {"regular file"});
    addHf("sharded/index lists a tensor not in its shard", "sharded", editIndex([=](auto& json) {
              json["weight_map"]["model.extra.weight"] = shard1;
              return shard1;
          }),
          {"model.extra.weight", "not in this shard"}, true);
    addHf("sharded/index places a tensor in the wrong shard", "sharded", editIndex([=](auto& json) {
              json["weight_map"][inShard2(json)] = shard1;
              return shard1;
          }),
          {"not in this shard"});
    addHf("sharded/index without weight_map", "sharded", editIndex([=](auto& json) {
              json.erase("weight_map");
              return index;
          }),
          {"weight_map"});
    addHf("sharded/index weight_map an array", "sharded", editIndex([=](auto& json) {
              json["weight_map"] = {1, 2};
              return index;
          }),
          {"weight_map"});
    addHf("sharded/index shard name a number", "sharded", editIndex([=](auto& json) {
              json["weight_map"][inShard2(json)] = 2;
              return index;
          }),
          {"weight_map", "file name"});
    addHf("sharded/index not JSON", "sharded",
          [=](const std::string& model) {
              writeBytes(model + "/" + index, "{\"weight_map\": {");
              return index;
          },
          {"invalid JSON"});
    addHf("sharded/shard truncated", "sharded",
          [=](const std::string& model) {
              const QByteArray bytes = readBytes(model + "/" + shard2);
              writeBytes(model + "/" + shard2, bytes.left(bytes.size() - 64));
              return shard2;
          },
          {"outside", "truncated"});

    // tokenizer.model.
    const auto replaceTokenizer = [](std::function<QByteArray()> bytes) {
        return [bytes](const std::string& model) {
            writeBytes(model + "/tokenizer.model", bytes());
            return std::string("tokenizer.model");
        };
    };
    for (const std::string arch : {"llama", "chatglm"}) {
        const auto row = [&](const std::string& what) { return "tokenizer-" + arch + "/" + what; };
        const bool cli = arch == "llama";
        addHf(row("garbage bytes"), arch, replaceTokenizer([] {
                  QByteArray bytes;
                  uint64_t state = 12345;
                  for (int i = 0; i < 4096; ++i) {
                      state = state * 6364136223846793005ull + 1442695040888963407ull;
                      bytes.append(char(state >> 56));
                  }
                  return bytes;
              }),
              {"sentencepiece"}, cli);
        addHf(row("a GGUF file"), arch,
              replaceTokenizer([this] { return readBytes(path("llama.gguf")); }),
              {"sentencepiece"});
        addHf(row("empty"), arch, replaceTokenizer([] { return QByteArray(); }),
              {"sentencepiece|empty"});
        addHf(row("a directory"), arch,
              [](const std::string& model) {
                  fs::remove(model + "/tokenizer.model");
                  fs::create_directory(model + "/tokenizer.model");
                  return std::string("tokenizer.model");
              },
              {"regular file"});
        addHf(row("duplicate pieces"), arch, replaceTokenizer([] {
                  Proto model;
                  model.message(1, pieceProto("<unk>", 2));
                  model.message(1, pieceProto("a", 1));
                  model.message(1, pieceProto("a", 1));
                  model.message(2, Proto().varint(3, 2).bytes);
                  return model.bytes;
              }),
              {"sentencepiece"});
        addHf(row("no unknown piece"), arch, replaceTokenizer([] {
                  Proto model;
                  model.message(1, pieceProto("a", 1));
                  model.message(1, pieceProto("b", 1));
                  model.message(2, Proto().varint(3, 2).bytes);
                  return model.bytes;
              }),
              {"sentencepiece"});
        addHf(row("more pieces than the output layer"), arch, replaceTokenizer([] {
                  const std::string proto =
                      serializeModelProto(syntheticVocabulary(400), {}, "tokenizer.model");
                  return QByteArray::fromStdString(proto);
              }),
              {"tokens", "output layer"});
    }
}

QTEST_GUILESS_MAIN(TestMalformedFiles)
#include "test_malformed_files.moc"
