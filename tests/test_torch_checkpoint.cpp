// PyTorch checkpoints (pytorch_model.bin, sharded or not): the tiny ChatGLM2 models in
// tests/data/torch/, written by torch.save (tools/make_torch_checkpoints.py), open like their
// safetensors form and give exactly the same logits, also after convert to GGUF and back; and
// every malformed archive or pickle is refused with an inferlens::Error that names the file and
// the problem, without a crash, a hang or a huge allocation (each case runs in a child process).
// Malformed files are made from the committed ones by the small ZIP and pickle builders below,
// which are first shown to rebuild files that open to the same tensors.

#include <QCryptographicHash>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "convert/model_converter.h"
#include "core/error.h"
#include "io/mapped_file.h"
#include "io/torch_checkpoint.h"
#include "io/torch_pickle.h"
#include "io/zip_archive.h"
#include "models/model_files.h"
#include "support/child_process.h"
#include "support/test_models.h"

using namespace inferlens;
namespace fs = std::filesystem;

static_assert(std::endian::native == std::endian::little, "the byte builders write host order");

namespace {

const std::string kData = std::string(INFERLENS_TEST_DATA) + "/torch";
constexpr long kPeakRssLimitKiB = 1L << 20;  // 1 GiB

QByteArray readBytes(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read " + path);
    return file.readAll();
}

void writeBytes(const std::string& path, const QByteArray& bytes) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
        throw std::runtime_error("cannot write " + path);
}

template <typename T>
void put(QByteArray& out, T value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <typename T>
void poke(QByteArray& bytes, qsizetype at, T value) {
    std::memcpy(bytes.data() + at, &value, sizeof value);
}

// ---------------------------------------------------------------------------------------------
// ZIP archives as a list of entries, serialised with every field under the case's control.

struct ZipEntry {
    std::string name;
    QByteArray data;
    uint16_t method = 0;
    uint16_t flags = 0;
    std::optional<uint32_t> crc;           // a wrong CRC, when set
    std::optional<std::string> localName;  // a local header name that differs, when set
    std::optional<uint64_t> declaredSize;  // a lying size in both headers, when set
};

struct ZipOffsets {
    std::vector<qsizetype> localHeaders;
    std::vector<qsizetype> centralHeaders;
    qsizetype zip64End = -1;
    qsizetype locator = -1;
    qsizetype end = 0;  // the end-of-central-directory record
};

struct Zip {
    std::vector<ZipEntry> entries;
    // Every size and offset in the central directory saturated (0xFFFFFFFF) and given in ZIP64
    // extra fields, with a ZIP64 end record and locator: what a writer does past 4 GiB.
    bool zip64 = false;

    ZipEntry& entry(const std::string& suffix) {
        for (auto& e : entries)
            if (e.name.ends_with(suffix))
                return e;
        throw std::runtime_error("no zip entry " + suffix);
    }
    const ZipEntry& entry(const std::string& suffix) const {
        return const_cast<Zip*>(this)->entry(suffix);
    }

    QByteArray serialize(ZipOffsets* offsets = nullptr) const {
        QByteArray out;
        ZipOffsets at;
        std::vector<uint64_t> localOffsets;
        for (const ZipEntry& e : entries) {
            const uint64_t size = e.declaredSize.value_or(uint64_t(e.data.size()));
            const uint32_t crc =
                e.crc.value_or(zipCrc32(std::as_bytes(std::span(e.data.data(), e.data.size()))));
            const std::string localName = e.localName.value_or(e.name);
            localOffsets.push_back(uint64_t(out.size()));
            at.localHeaders.push_back(out.size());
            put<uint32_t>(out, 0x04034b50);
            put<uint16_t>(out, 45);
            put<uint16_t>(out, e.flags);
            put<uint16_t>(out, e.method);
            put<uint32_t>(out, 0);  // time and date
            put<uint32_t>(out, crc);
            put<uint32_t>(out, zip64 ? 0xffffffff : uint32_t(size));
            put<uint32_t>(out, zip64 ? 0xffffffff : uint32_t(size));
            put<uint16_t>(out, uint16_t(localName.size()));
            put<uint16_t>(out, zip64 ? 20 : 0);
            out.append(localName.data(), qsizetype(localName.size()));
            if (zip64) {
                put<uint16_t>(out, 1);
                put<uint16_t>(out, 16);
                put<uint64_t>(out, size);
                put<uint64_t>(out, size);
            }
            out.append(e.data);
        }
        const uint64_t directoryAt = uint64_t(out.size());
        for (size_t i = 0; i < entries.size(); ++i) {
            const ZipEntry& e = entries[i];
            const uint64_t size = e.declaredSize.value_or(uint64_t(e.data.size()));
            const uint32_t crc =
                e.crc.value_or(zipCrc32(std::as_bytes(std::span(e.data.data(), e.data.size()))));
            at.centralHeaders.push_back(out.size());
            put<uint32_t>(out, 0x02014b50);
            put<uint16_t>(out, 45);
            put<uint16_t>(out, 45);
            put<uint16_t>(out, e.flags);
            put<uint16_t>(out, e.method);
            put<uint32_t>(out, 0);
            put<uint32_t>(out, crc);
            put<uint32_t>(out, zip64 ? 0xffffffff : uint32_t(size));
            put<uint32_t>(out, zip64 ? 0xffffffff : uint32_t(size));
            put<uint16_t>(out, uint16_t(e.name.size()));
            put<uint16_t>(out, zip64 ? 28 : 0);
            put<uint16_t>(out, 0);  // comment
            put<uint16_t>(out, 0);  // disk
            put<uint16_t>(out, 0);  // internal attributes
            put<uint32_t>(out, 0);  // external attributes
            put<uint32_t>(out, zip64 ? 0xffffffff : uint32_t(localOffsets[i]));
            out.append(e.name.data(), qsizetype(e.name.size()));
            if (zip64) {
                put<uint16_t>(out, 1);
                put<uint16_t>(out, 24);
                put<uint64_t>(out, size);  // uncompressed, compressed, local header offset
                put<uint64_t>(out, size);
                put<uint64_t>(out, localOffsets[i]);
            }
        }
        const uint64_t directorySize = uint64_t(out.size()) - directoryAt;
        if (zip64) {
            at.zip64End = out.size();
            put<uint32_t>(out, 0x06064b50);
            put<uint64_t>(out, 44);
            put<uint16_t>(out, 45);
            put<uint16_t>(out, 45);
            put<uint32_t>(out, 0);
            put<uint32_t>(out, 0);
            put<uint64_t>(out, entries.size());
            put<uint64_t>(out, entries.size());
            put<uint64_t>(out, directorySize);
            put<uint64_t>(out, directoryAt);
            at.locator = out.size();
            put<uint32_t>(out, 0x07064b50);
            put<uint32_t>(out, 0);
            put<uint64_t>(out, uint64_t(at.zip64End));
            put<uint32_t>(out, 1);
        }
        at.end = out.size();
        put<uint32_t>(out, 0x06054b50);
        put<uint16_t>(out, 0);
        put<uint16_t>(out, 0);
        put<uint16_t>(out, zip64 ? 0xffff : uint16_t(entries.size()));
        put<uint16_t>(out, zip64 ? 0xffff : uint16_t(entries.size()));
        put<uint32_t>(out, zip64 ? 0xffffffff : uint32_t(directorySize));
        put<uint32_t>(out, zip64 ? 0xffffffff : uint32_t(directoryAt));
        put<uint16_t>(out, 0);
        if (offsets != nullptr)
            *offsets = at;
        return out;
    }
};

Zip readZip(const std::string& path) {
    const ZipArchive archive(std::make_shared<MappedFile>(path));
    Zip zip;
    for (const auto& [name, entry] : archive.entries())
        zip.entries.push_back({name, QByteArray(reinterpret_cast<const char*>(entry.data.data()),
                                                qsizetype(entry.data.size()))});
    return zip;
}

// Raw deflate (what a ZIP's method 8 holds): zlib's stream without its 2-byte header and 4-byte
// Adler-32 trailer; qCompress adds a 4-byte length before the zlib stream.
QByteArray deflate(const QByteArray& data) {
    const QByteArray zlib = qCompress(data).mid(4);
    return zlib.mid(2, zlib.size() - 6);
}

// ---------------------------------------------------------------------------------------------
// State dict pickles, written opcode by opcode as torch.save writes them.

class Pickle {
  public:
    explicit Pickle(int protocol = 2) : protocol_(protocol) {
        op(0x80).byte(uint8_t(protocol));
        if (protocol >= 4)
            op(0x95).raw(std::string(8, '\0'));  // FRAME (the length is not checked)
    }
    Pickle& op(uint8_t opcode) { return byte(opcode); }
    Pickle& byte(uint8_t value) {
        bytes.append(char(value));
        return *this;
    }
    Pickle& raw(std::string_view text) {
        bytes.append(text.data(), qsizetype(text.size()));
        return *this;
    }
    Pickle& string(std::string_view text) {
        if (protocol_ >= 4 && text.size() < 256) {
            op(0x8c).byte(uint8_t(text.size()));  // SHORT_BINUNICODE
        } else {
            op('X');
            put<uint32_t>(bytes, uint32_t(text.size()));
        }
        raw(text);
        return memoize();
    }
    Pickle& integer(int64_t value) {
        if (value >= 0 && value < 256)
            return op('K').byte(uint8_t(value));
        if (value >= 0 && value < 65536) {
            op('M');
            put<uint16_t>(bytes, uint16_t(value));
            return *this;
        }
        if (value >= INT32_MIN && value <= INT32_MAX) {
            op('J');
            put<int32_t>(bytes, int32_t(value));
            return *this;
        }
        op(0x8a).byte(8);  // LONG1
        put<int64_t>(bytes, value);
        return *this;
    }
    Pickle& global(std::string_view module, std::string_view name) {
        if (protocol_ >= 4) {
            string(module).string(name).op(0x93);  // STACK_GLOBAL
        } else {
            op('c').raw(module).raw("\n").raw(name).raw("\n");
        }
        return memoize();
    }
    Pickle& ints(const std::vector<int64_t>& values) {
        op('(');
        for (int64_t value : values)
            integer(value);
        return op('t');
    }
    // A tensor as _rebuild_tensor_v2(persistent storage, offset, size, stride, False,
    // OrderedDict()).
    Pickle& tensor(const TorchTensorRecord& r) {
        global("torch._utils", "_rebuild_tensor_v2").op('(');
        const auto dot = r.storageType.rfind('.');
        op('(').string("storage").global(r.storageType.substr(0, dot),
                                         r.storageType.substr(dot + 1));
        string(r.storageKey).string("cpu").integer(r.storageNumel).op('t').op('Q');
        integer(r.storageOffset).ints(r.size).ints(r.stride).op(0x89);
        global("collections", "OrderedDict").op(')').op('R');
        return op('t').op('R').memoize();
    }
    // The whole state dict: {} then one SETITEMS, then STOP.
    Pickle& stateDict(const std::vector<TorchTensorRecord>& records) {
        op('}').memoize().op('(');
        for (const auto& r : records)
            string(r.name).tensor(r);
        return op('u').op('.');
    }
    Pickle& memoize() {
        if (protocol_ >= 4)
            return op(0x94);  // MEMOIZE
        return *this;
    }

    QByteArray bytes;

  private:
    int protocol_;
};

// A pickle of a few opcodes after PROTO 2. (Literals go through the array overload, so that
// their \x00 bytes count.)
QByteArray rawPickle(std::string_view body) {
    return QByteArray("\x80\x02", 2) + QByteArray(body.data(), qsizetype(body.size()));
}
template <size_t N>
QByteArray rawPickle(const char (&body)[N]) {
    return rawPickle(std::string_view(body, N - 1));
}

std::vector<TorchTensorRecord> recordsOf(const Zip& zip) {
    const ZipEntry& pickle = zip.entry("/data.pkl");
    return readTorchStateDict(std::as_bytes(std::span(pickle.data.data(), pickle.data.size())),
                              "test", pickle.name);
}

TorchTensorRecord& record(std::vector<TorchTensorRecord>& records, std::string_view suffix) {
    for (auto& r : records)
        if (r.name.ends_with(suffix))
            return r;
    throw std::runtime_error("no tensor " + std::string(suffix));
}

// ---------------------------------------------------------------------------------------------

std::vector<int32_t> ids(int64_t vocab) {
    return test::testIds(12, vocab, 5);
}

nlohmann::json manifest() {
    return nlohmann::json::parse(readBytes(kData + "/manifest.json").toStdString());
}

// The synthetic options that a manifest entry records, as tools/make_torch_checkpoints.py passed
// them to `inferlens-cli synth`.
SyntheticModelOptions synthOptions(const nlohmann::json& synth) {
    SyntheticModelOptions o;
    o.architecture = synth.at("arch").get<std::string>();
    o.dtype = *dtypeFromName(synth.at("dtype").get<std::string>());
    o.layers = synth.at("layers");
    o.hidden = synth.at("hidden");
    o.heads = synth.at("heads");
    o.kvHeads = synth.at("kv-heads");
    o.ffn = synth.at("ffn");
    o.vocab = synth.at("vocab");
    o.context = synth.at("ctx");
    o.seed = synth.at("seed");
    o.format = ModelFormat::HuggingFace;
    return o;
}

struct BadModel {
    std::string open;     // what openModelFiles is given
    std::string badFile;  // the file the message must start with
};

using Maker = std::function<BadModel(const std::string& dir)>;

bool containsKeyword(const QString& message, const QString& keyword) {
    for (const QString& alternative : keyword.split('|'))
        if (message.contains(alternative, Qt::CaseInsensitive))
            return true;
    return false;
}

}  // namespace

Q_DECLARE_METATYPE(Maker)

class TestTorchCheckpoint : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void checkpointsMatchSafetensors_data();
    void checkpointsMatchSafetensors();
    void convertToGgufAndBackKeepsLogits();
    void rebuiltArchivesOpenToTheSameTensors();
    void zip64ArchiveReads();
    void long1IntegersDecode();
    void safetensorsArePreferred();
    void nonFloatBufferIsListedUnused();
    void malformedInputIsRefused_data();
    void malformedInputIsRefused();

  private:
    std::string copyModel(const std::string& dir, const std::string& name = "chatglm-f16") const {
        const std::string target = dir + "/model";
        fs::copy(kData + "/" + name, target, fs::copy_options::recursive);
        // A checkout may be read-only; the cases rewrite files of the copy.
        for (const auto& file : fs::recursive_directory_iterator(target))
            fs::permissions(file.path(), fs::perms::owner_write, fs::perm_options::add);
        return target;
    }
    void addCase(const std::string& name, const Maker& make, const QStringList& keywords) {
        QTest::newRow(name.c_str()) << make << keywords;
    }
    // A case that rewrites pytorch_model.bin of a copy of chatglm-f16 from an edited Zip.
    void addZip(const std::string& name, const std::function<void(Zip&)>& edit,
                const QStringList& keywords) {
        addBytes(
            name,
            [this, edit](const Zip&) {
                Zip zip = original_;
                edit(zip);
                return zip.serialize();
            },
            keywords);
    }
    // A case that writes pytorch_model.bin as given bytes.
    void addBytes(const std::string& name, const std::function<QByteArray(const Zip&)>& bytes,
                  const QStringList& keywords) {
        addCase(
            name,
            [this, bytes](const std::string& dir) {
                const std::string model = copyModel(dir);
                const std::string file = model + "/pytorch_model.bin";
                writeBytes(file, bytes(original_));
                return BadModel{model, file};
            },
            keywords);
    }
    // A case whose data.pkl is `pickle`.
    void addPickle(const std::string& name, const QByteArray& pickle, const QStringList& keywords) {
        addZip(
            name, [pickle](Zip& zip) { zip.entry("/data.pkl").data = pickle; }, keywords);
    }
    // A case whose data.pkl is the state dict of the original records after `edit`.
    void addRecords(const std::string& name,
                    const std::function<void(std::vector<TorchTensorRecord>&)>& edit,
                    const QStringList& keywords) {
        addZip(
            name,
            [this, edit](Zip& zip) {
                auto records = records_;
                edit(records);
                zip.entry("/data.pkl").data = Pickle().stateDict(records).bytes;
            },
            keywords);
    }
    void addZipCases();
    void addPickleCases();
    void addTensorCases();
    void addDirectoryCases();

    Zip original_;  // chatglm-f16's pytorch_model.bin
    std::vector<TorchTensorRecord> records_;
};

void TestTorchCheckpoint::initTestCase() {
    original_ = readZip(kData + "/chatglm-f16/pytorch_model.bin");
    records_ = recordsOf(original_);
    QCOMPARE(records_.size(), size_t(18));  // 17 weights and the rotary buffer
    qInfo("test data written by torch %s",
          manifest().at("torch_version").get<std::string>().c_str());
}

void TestTorchCheckpoint::checkpointsMatchSafetensors_data() {
    QTest::addColumn<QString>("name");
    const nlohmann::json models = manifest().at("models");
    for (const auto& [name, entry] : models.items())
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

// The synthetic model the checkpoint was made from, regenerated (its bytes checked against the
// manifest), and the checkpoint: the same tensors byte for byte, and the same logits exactly.
void TestTorchCheckpoint::checkpointsMatchSafetensors() {
    QFETCH(QString, name);
    const auto entry = manifest().at("models").at(name.toStdString());
    QTemporaryDir dir;
    const std::string reference =
        test::writeSynthetic(dir, "reference", synthOptions(entry.at("synth")));
    const QByteArray hash = QCryptographicHash::hash(readBytes(reference + "/model.safetensors"),
                                                     QCryptographicHash::Sha256)
                                .toHex();
    QVERIFY2(hash.toStdString() == entry.at("safetensors_sha256").get<std::string>(),
             "the synthetic model generator changed: re-run tools/make_torch_checkpoints.py");

    const std::string torchDir = kData + "/" + name.toStdString();
    const ModelFiles torch = openModelFiles(torchDir);
    const ModelFiles safetensors = openModelFiles(reference);
    QCOMPARE(torch.format, ModelFormat::HuggingFace);
    QVERIFY(!torch.weightFiles.empty() && torch.weightFiles[0].ends_with(".bin"));
    QVERIFY(torch.unusedTensors.empty());  // inv_freq is a known buffer
    QCOMPARE(torch.tensors.size(), safetensors.tensors.size());
    for (const auto& [tensorName, view] : safetensors.tensors) {
        const TensorView& other = torch.tensors.at(tensorName);
        QCOMPARE(other.dtype, view.dtype);
        QCOMPARE(other.shape, view.shape);
        QCOMPARE(other.byteCount, view.byteCount);
        QVERIFY2(std::memcmp(other.data, view.data, size_t(view.byteCount)) == 0,
                 tensorName.c_str());
    }

    const auto tokens = ids(safetensors.config.vocabSize);
    const std::vector<float> expected = test::engineLogits(reference, tokens);
    const std::vector<float> actual = test::engineLogits(torchDir, tokens);
    QCOMPARE(actual.size(), expected.size());
    float maxDifference = 0, maxMagnitude = 0;
    for (size_t i = 0; i < actual.size(); ++i) {
        maxDifference = std::max(maxDifference, std::abs(actual[i] - expected[i]));
        maxMagnitude = std::max(maxMagnitude, std::abs(expected[i]));
    }
    qInfo("%s: %zu logits (%zu positions), max |torch - safetensors| = %g, max |logit| = %g",
          qPrintable(name), actual.size(), tokens.size(), double(maxDifference),
          double(maxMagnitude));
    QVERIFY(actual == expected);
}

// The closing evidence: PyTorch checkpoint → GGUF → safetensors, same logits at every step.
void TestTorchCheckpoint::convertToGgufAndBackKeepsLogits() {
    QTemporaryDir dir;
    const std::string source = kData + "/chatglm-f16-sharded";
    const std::string gguf = dir.filePath("m.gguf").toStdString();
    const std::string back = dir.filePath("back").toStdString();
    convertModel(openModelFiles(source), ModelFormat::Gguf, std::nullopt, gguf);
    convertModel(openModelFiles(gguf), ModelFormat::HuggingFace, std::nullopt, back);
    QVERIFY(fs::exists(back + "/model.safetensors"));
    const auto tokens = ids(openModelFiles(source).config.vocabSize);
    const std::vector<float> expected = test::engineLogits(source, tokens);
    QVERIFY(test::engineLogits(gguf, tokens) == expected);
    QVERIFY(test::engineLogits(back, tokens) == expected);
    qInfo("torch → GGUF → safetensors: %zu logits identical", expected.size());
}

// The builders used by the malformed cases reproduce a valid checkpoint: the archive rebuilt
// from its entries, and the pickle rebuilt from its records (in protocols 2 and 4).
void TestTorchCheckpoint::rebuiltArchivesOpenToTheSameTensors() {
    QTemporaryDir dir;
    const TorchCheckpoint committed(kData + "/chatglm-f16/pytorch_model.bin");
    for (const int protocol : {0, 2, 4}) {
        Zip zip = original_;
        if (protocol != 0)
            zip.entry("/data.pkl").data = Pickle(protocol).stateDict(records_).bytes;
        const std::string path = dir.filePath("rebuilt.bin").toStdString();
        writeBytes(path, zip.serialize());
        const TorchCheckpoint rebuilt(path);
        QCOMPARE(rebuilt.tensors().size(), committed.tensors().size());
        for (size_t i = 0; i < rebuilt.tensors().size(); ++i) {
            const TensorView& a = rebuilt.tensors()[i];
            const TensorView& b = committed.tensors()[i];
            QCOMPARE(a.name, b.name);
            QCOMPARE(a.dtype, b.dtype);
            QCOMPARE(a.shape, b.shape);
            QCOMPARE(a.byteCount, b.byteCount);
            QVERIFY(std::memcmp(a.data, b.data, size_t(a.byteCount)) == 0);
        }
    }
}

// Sizes and offsets given only in ZIP64 fields (as past 4 GiB) read the same.
void TestTorchCheckpoint::zip64ArchiveReads() {
    QTemporaryDir dir;
    const std::string model = copyModel(dir.path().toStdString());
    Zip zip = original_;
    zip.zip64 = true;
    writeBytes(model + "/pytorch_model.bin", zip.serialize());
    const ZipArchive archive(std::make_shared<MappedFile>(model + "/pytorch_model.bin"));
    QCOMPARE(archive.entries().size(), original_.entries.size());
    for (const ZipEntry& e : original_.entries) {
        const ZipArchive::Entry* read = archive.find(e.name);
        QVERIFY(read != nullptr);
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(read->data.data()),
                            qsizetype(read->data.size())),
                 e.data);
    }
    const auto tokens = ids(300);
    QVERIFY(test::engineLogits(model, tokens) ==
            test::engineLogits(kData + "/chatglm-f16", tokens));
}

// LONG1 (any width up to 8 bytes, two's complement, little-endian), which torch.save uses for
// numbers past 2^31 — element counts and offsets of big storages.
void TestTorchCheckpoint::long1IntegersDecode() {
    const QByteArray pickle = rawPickle(
        "}(X\x01\x00\x00\x00"
        "tctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00"
        "storagectorch\nHalfStorage\nX\x01\x00\x00\x00"
        "0X\x03\x00\x00\x00"
        "cpu\x8a\x05\x00\x00\x00\x00\x01tQ\x8a\x01\xff\x8a\x00\x85\x8a\x08"
        "\x00\x00\x00\x00\x00\x00\x00\x80\x85\x89}tRu.");
    const auto records = readTorchStateDict(std::as_bytes(std::span(pickle.data(), pickle.size())),
                                            "test", "data.pkl");
    QCOMPARE(records.size(), size_t(1));
    QCOMPARE(records[0].name, std::string("t"));
    QCOMPARE(records[0].storageType, std::string("torch.HalfStorage"));
    QCOMPARE(records[0].storageKey, std::string("0"));
    QCOMPARE(records[0].storageNumel, int64_t(1) << 32);
    QCOMPARE(records[0].storageOffset, int64_t(-1));
    QCOMPARE(records[0].size, std::vector<int64_t>{0});
    QCOMPARE(records[0].stride, std::vector<int64_t>{INT64_MIN});
}

void TestTorchCheckpoint::safetensorsArePreferred() {
    QTemporaryDir dir;
    const std::string model = copyModel(dir.path().toStdString());
    const auto entry = manifest().at("models").at("chatglm-f16");
    const std::string reference =
        test::writeSynthetic(dir, "reference", synthOptions(entry.at("synth")));
    fs::copy_file(reference + "/model.safetensors", model + "/model.safetensors");
    const ModelFiles files = openModelFiles(model);
    QCOMPARE(files.weightFiles, std::vector<std::string>{model + "/model.safetensors"});
}

// An int64 tensor the model does not use (like position_ids buffers elsewhere) is no obstacle.
void TestTorchCheckpoint::nonFloatBufferIsListedUnused() {
    QTemporaryDir dir;
    const std::string model = copyModel(dir.path().toStdString());
    Zip zip = original_;
    auto records = records_;
    TorchTensorRecord extra;
    extra.name = "transformer.position_ids";
    extra.storageType = "torch.LongStorage";
    extra.storageKey = "extra";
    extra.storageNumel = 4;
    extra.size = {1, 4};
    extra.stride = {4, 1};
    records.push_back(extra);
    zip.entry("/data.pkl").data = Pickle().stateDict(records).bytes;
    const std::string prefix = zip.entry("/data.pkl").name;
    zip.entries.push_back({prefix.substr(0, prefix.find('/')) + "/data/extra", QByteArray(32, 0)});
    writeBytes(model + "/pytorch_model.bin", zip.serialize());
    const TorchCheckpoint checkpoint(model + "/pytorch_model.bin");
    QCOMPARE(checkpoint.otherTensors().at("transformer.position_ids"),
             std::string("torch.LongStorage"));
    const ModelFiles files = openModelFiles(model);
    QCOMPARE(files.unusedTensors, std::vector<std::string>{"transformer.position_ids"});
}

void TestTorchCheckpoint::malformedInputIsRefused_data() {
    QTest::addColumn<Maker>("make");
    QTest::addColumn<QStringList>("keywords");
    addZipCases();
    addPickleCases();
    addTensorCases();
    addDirectoryCases();
}

void TestTorchCheckpoint::addZipCases() {
    addBytes("zip/truncated to half", [](const Zip& zip) { return zip.serialize().left(40000); },
             {"end of central directory"});
    addBytes("zip/last 10 bytes cut",
             [](const Zip& zip) {
                 const QByteArray bytes = zip.serialize();
                 return bytes.left(bytes.size() - 10);
             },
             {"end of central directory"});
    addBytes("zip/empty file", [](const Zip&) { return QByteArray(); },
             {"end of central directory"});
    addBytes("zip/not an archive", [](const Zip&) { return QByteArray(5000, 'x'); },
             {"end of central directory"});
    addBytes("zip/legacy torch.save format",
             [](const Zip&) { return QByteArray("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20", 10); },
             {"legacy"});
    const auto corruptEnd = [](qsizetype field, uint32_t value) {
        return [=](const Zip& zip) {
            ZipOffsets at;
            QByteArray bytes = zip.serialize(&at);
            poke<uint32_t>(bytes, at.end + field, value);
            return bytes;
        };
    };
    addBytes("zip/central directory offset off by one",
             [](const Zip& zip) {
                 ZipOffsets at;
                 QByteArray bytes = zip.serialize(&at);
                 uint32_t offset = 0;
                 std::memcpy(&offset, bytes.constData() + at.end + 16, 4);
                 poke<uint32_t>(bytes, at.end + 16, offset + 1);
                 return bytes;
             },
             {"central directory"});
    addBytes("zip/central directory offset past the end", corruptEnd(16, 0x7fffffff),
             {"central directory", "does not lie before"});
    addBytes("zip/central directory size huge", corruptEnd(12, 0x7fffffff), {"central directory"});
    addBytes("zip/saturated offset without ZIP64", corruptEnd(16, 0xffffffff), {"ZIP64"});
    addBytes("zip/entry count too large",
             [](const Zip& zip) {
                 ZipOffsets at;
                 QByteArray bytes = zip.serialize(&at);
                 poke<uint16_t>(bytes, at.end + 8, 0xfff0);
                 poke<uint16_t>(bytes, at.end + 10, 0xfff0);
                 return bytes;
             },
             {"claims"});
    addBytes("zip/local header offset wrong",
             [](const Zip& zip) {
                 ZipOffsets at;
                 QByteArray bytes = zip.serialize(&at);
                 poke<uint32_t>(bytes, at.centralHeaders[1] + 42, 7);
                 return bytes;
             },
             {"local header"});
    addBytes("zip/multi-disk",
             [](const Zip& zip) {
                 ZipOffsets at;
                 QByteArray bytes = zip.serialize(&at);
                 poke<uint16_t>(bytes, at.end + 4, 1);
                 return bytes;
             },
             {"multi-disk"});
    addZip("zip/compressed data.pkl",
           [](Zip& zip) {
               ZipEntry& e = zip.entry("/data.pkl");
               e.method = 8;
               e.data = deflate(e.data);
           },
           {"data.pkl", "compressed (deflate)"});
    addZip("zip/compressed storage",
           [](Zip& zip) {
               ZipEntry& e = zip.entry("/data/0");
               e.method = 8;
               e.data = deflate(e.data);
           },
           {"data/0'", "compressed (deflate)"});
    addZip("zip/bzip2 entry", [](Zip& zip) { zip.entry("/version").method = 12; }, {"method 12"});
    addZip("zip/encrypted entry", [](Zip& zip) { zip.entry("/data/1").flags = 1; }, {"encrypted"});
    addZip("zip/local name differs",
           [](Zip& zip) { zip.entry("/data/1").localName = "chatglm-f16/data/X"; },
           {"name differs"});
    addZip("zip/entry passes the central directory",
           [](Zip& zip) { zip.entries.back().declaredSize = 1 << 20; }, {"central directory"});
    addZip("zip/data.pkl CRC mismatch", [](Zip& zip) { zip.entry("/data.pkl").crc = 0x12345678; },
           {"data.pkl", "CRC"});
    addZip("zip/duplicate entry", [](Zip& zip) { zip.entries.push_back(zip.entries[0]); },
           {"appears twice"});
    addZip("zip/no data.pkl",
           [](Zip& zip) {
               std::erase_if(zip.entries, [](auto& e) { return e.name.ends_with(".pkl"); });
           },
           {"data.pkl"});
    addZip("zip/two pickles",
           [](Zip& zip) {
               ZipEntry copy = zip.entry("/data.pkl");
               copy.name = "other/data.pkl";
               zip.entries.push_back(copy);
           },
           {"two pickles"});
    addZip("zip/byteorder big", [](Zip& zip) { zip.entry("/byteorder").data = "big"; },
           {"byteorder", "little"});
    addBytes("zip64/locator points nowhere",
             [](const Zip& original) {
                 Zip zip = original;
                 zip.zip64 = true;
                 ZipOffsets at;
                 QByteArray bytes = zip.serialize(&at);
                 poke<uint64_t>(bytes, at.locator + 8, uint64_t(at.zip64End - 8));
                 return bytes;
             },
             {"ZIP64 end record"});
    addBytes("zip64/locator offset past the locator",
             [](const Zip& original) {
                 Zip zip = original;
                 zip.zip64 = true;
                 ZipOffsets at;
                 QByteArray bytes = zip.serialize(&at);
                 poke<uint64_t>(bytes, at.locator + 8, uint64_t(1) << 62);
                 return bytes;
             },
             {"ZIP64 end record"});
    addBytes("zip64/extra field missing a value",
             [](const Zip& original) {
                 Zip zip = original;
                 zip.zip64 = true;
                 ZipOffsets at;
                 QByteArray bytes = zip.serialize(&at);
                 // The first entry's ZIP64 extra field claims 16 bytes: the local header offset is
                 // then missing (the remaining 8 bytes become an unknown field).
                 const qsizetype extra =
                     at.centralHeaders[0] + 46 + qsizetype(zip.entries[0].name.size());
                 poke<uint16_t>(bytes, extra + 2, 16);
                 return bytes;
             },
             {"ZIP64 extra"});
    addBytes("zip64/central directory offset huge",
             [](const Zip& original) {
                 Zip zip = original;
                 zip.zip64 = true;
                 ZipOffsets at;
                 QByteArray bytes = zip.serialize(&at);
                 poke<uint64_t>(bytes, at.zip64End + 48, uint64_t(1) << 63);
                 return bytes;
             },
             {"central directory", "does not lie before"});
    addBytes("zip64/entry count huge",
             [](const Zip& original) {
                 Zip zip = original;
                 zip.zip64 = true;
                 ZipOffsets at;
                 QByteArray bytes = zip.serialize(&at);
                 poke<uint64_t>(bytes, at.zip64End + 24, uint64_t(1) << 60);
                 poke<uint64_t>(bytes, at.zip64End + 32, uint64_t(1) << 60);
                 return bytes;
             },
             {"claims"});
}

void TestTorchCheckpoint::addPickleCases() {
    addPickle("pickle/unknown opcode", rawPickle("}\xfe."), {"unknown", "opcode 0xfe"});
    addPickle("pickle/unsupported opcode (FLOAT)", rawPickle("F1.0\n."), {"opcode 0x46"});
    addPickle("pickle/global os.system", rawPickle("cos\nsystem\n(X\x02\x00\x00\x00lstR."),
              {"global 'os.system' is not allowed"});
    addPickle("pickle/global builtins.eval by STACK_GLOBAL",
              Pickle(4).global("builtins", "eval").op('.').bytes,
              {"global 'builtins.eval' is not allowed"});
    addPickle("pickle/global torch.load", rawPickle("ctorch\nload\n."),
              {"'torch.load' is not allowed"});
    addPickle("pickle/GLOBAL without newline",
              rawPickle("ccollections OrderedDict" + std::string(300, 'x')), {"newline"});
    addPickle("pickle/calling a storage type", rawPickle("ctorch\nFloatStorage\n)R."),
              {"cannot be called"});
    addPickle("pickle/OrderedDict with arguments", rawPickle("ccollections\nOrderedDict\n]\x85R."),
              {"arguments"});
    addPickle("pickle/memo index out of range", rawPickle("}q\x00h\x05."), {"memo index 5"});
    addPickle("pickle/long memo index out of range", rawPickle("j\xff\xff\xff\xff."),
              {"memo index 4294967295"});
    addPickle("pickle/stack underflow", rawPickle("R."), {"stack underflow"});
    addPickle("pickle/stack underflow below a MARK", rawPickle("}(s."), {"stack underflow"});
    addPickle("pickle/SETITEMS without MARK", rawPickle("}u."), {"without a MARK"});
    addPickle("pickle/SETITEMS with an odd count", rawPickle("}(K\x01u."), {"odd"});
    addPickle("pickle/APPEND to a dict",
              rawPickle("}K\x01"
                        "a."),
              {"APPEND on a dict"});
    addPickle("pickle/STOP with an open MARK", rawPickle("}(."), {"open MARK"});
    addPickle("pickle/no STOP", rawPickle("}"), {"truncated"});
    addPickle("pickle/truncated string",
              rawPickle("X\xff\x00\x00\x00"
                        "abc"),
              {"truncated"});
    addPickle("pickle/huge string length", rawPickle("X\xff\xff\xff\x7f"), {"bytes"});
    addPickle("pickle/string not UTF-8", rawPickle("X\x02\x00\x00\x00\xc3\x28."), {"UTF-8"});
    addPickle("pickle/integer wider than 64 bits",
              rawPickle("\x8a\x09" + std::string(9, '\x01') + "."), {"64 bits"});
    addPickle("pickle/protocol 9", QByteArray("\x80\x09}.", 4), {"protocol 9"});
    addPickle("pickle/root is an int", rawPickle("K\x01."), {"not a state dict"});
    addPickle("pickle/two objects left", rawPickle("}}."), {"2 objects"});
    addPickle("pickle/value not a tensor",
              rawPickle("}(X\x01\x00\x00\x00"
                        "aK\x01u."),
              {"'a'", "not a tensor"});
    addPickle("pickle/key not a string", rawPickle("}(K\x01K\x01u."), {"key is an int"});
    addPickle("pickle/MARKs nested deeply", rawPickle(std::string(100, '(')), {"MARK"});
    addPickle("pickle/stack overflow", rawPickle(std::string(70000, 'N')), {"stack grows"});
    {
        // 200,000 nested 1-tuples: no recursion anywhere, so no stack overflow.
        std::string nested = "N" + std::string(200000, '\x85') + ".";
        addPickle("pickle/deeply nested tuples", rawPickle(nested), {"not a state dict"});
    }
    {
        // A list that contains itself: a cycle costs nothing (objects live in one arena).
        addPickle("pickle/self-containing list",
                  rawPickle("]q\x00h\x00"
                            "a."),
                  {"not a state dict"});
    }
    {
        // 300,000 Nones appended to a list (the limit is 2^18 objects): two bytes of pickle each.
        std::string many = "]";
        for (int i = 0; i < 300000; ++i)
            many += "Na";
        addPickle("pickle/too many objects", rawPickle(many + "."), {"objects"});
    }
    addPickle("pickle/persistent id not a storage tuple", rawPickle("K\x01Q."), {"persistent id"});
    addPickle("pickle/persistent id with a callable type",
              rawPickle("(X\x07\x00\x00\x00storageccollections\nOrderedDict\nX\x01\x00\x00\x00"
                        "0X\x03\x00\x00\x00"
                        "cpuK\x01tQ."),
              {"not a storage type"});
    addPickle("pickle/_rebuild_tensor_v2 with 3 arguments",
              rawPickle("ctorch._utils\n_rebuild_tensor_v2\n(K\x01K\x02K\x03tR."),
              {"6 or 7 arguments"});
    addPickle("pickle/_rebuild_tensor_v2 of an int",
              rawPickle("ctorch._utils\n_rebuild_tensor_v2\n(K\x01K\x00))\x89}tR."),
              {"storage is an int"});
}

void TestTorchCheckpoint::addTensorCases() {
    addRecords("tensor/storage key not in the archive",
               [](auto& records) { record(records, "output_layer.weight").storageKey = "999"; },
               {"output_layer.weight", "data/999", "not in the archive"});
    addRecords("tensor/storage out of range",
               [](auto& records) {
                   auto& r = record(records, "final_layernorm.weight");
                   r.storageOffset = r.storageNumel - 1;
               },
               {"final_layernorm.weight", "outside storage"});
    addRecords("tensor/negative storage offset",
               [](auto& records) { record(records, "final_layernorm.weight").storageOffset = -4; },
               {"outside storage"});
    addRecords("tensor/size larger than its storage",
               [](auto& records) { record(records, "output_layer.weight").size[0] += 1; },
               {"output_layer.weight", "outside storage"});
    addRecords("tensor/non-contiguous strides",
               [](auto& records) {
                   auto& r = record(records, "output_layer.weight");
                   r.stride = {1, r.size[0]};  // a transposed view
               },
               {"output_layer.weight", "not contiguous"});
    addRecords("tensor/negative size",
               [](auto& records) { record(records, "final_layernorm.weight").size = {-1}; },
               {"negative size"});
    addRecords("tensor/absurd size",
               [](auto& records) {
                   auto& r = record(records, "output_layer.weight");
                   r.size = {int64_t(1) << 40, int64_t(1) << 40};
                   r.stride = {int64_t(1) << 40, 1};
               },
               {"absurd size"});
    addRecords("tensor/nine dimensions",
               [](auto& records) {
                   auto& r = record(records, "final_layernorm.weight");
                   r.size.assign(9, 1);
                   r.stride.assign(9, 1);
               },
               {"9 dimensions"});
    addRecords("tensor/size and stride lengths differ",
               [](auto& records) { record(records, "output_layer.weight").stride = {1}; },
               {"different lengths"});
    addRecords("tensor/storage numel disagrees with its entry",
               [](auto& records) { record(records, "output_layer.weight").storageNumel += 1; },
               {"output_layer.weight", "holds"});
    addRecords("tensor/storage numel huge",
               [](auto& records) {
                   record(records, "output_layer.weight").storageNumel = int64_t(1) << 62;
               },
               {"holds"});
    addRecords("tensor/one storage as two types",
               [](auto& records) {
                   auto& a = record(records, "final_layernorm.weight");
                   auto& b = record(records, "output_layer.weight");
                   b.storageKey = a.storageKey;
                   b.storageType = "torch.BFloat16Storage";
               },
               {"used as both"});
    addRecords("tensor/needed tensor stored as int64",
               [](auto& records) {
                   auto& r = record(records, "output_layer.weight");
                   r.storageType = "torch.LongStorage";
                   r.storageNumel /= 4;
                   r.size[0] /= 4;
               },
               {"output_layer.weight", "LongStorage"});
    addRecords("tensor/duplicate name", [](auto& records) { records.push_back(records.front()); },
               {"appears twice"});
}

void TestTorchCheckpoint::addDirectoryCases() {
    const std::string shard1 = "pytorch_model-00001-of-00002.bin";
    const std::string shard2 = "pytorch_model-00002-of-00002.bin";
    const std::string index = "pytorch_model.bin.index.json";
    const auto editIndex = [=, this](std::function<std::string(nlohmann::json&)> edit) {
        return [=, this](const std::string& dir) {
            const std::string model = copyModel(dir, "chatglm-f16-sharded");
            auto json = nlohmann::json::parse(readBytes(model + "/" + index).toStdString());
            const std::string bad = edit(json);
            writeBytes(model + "/" + index, QByteArray::fromStdString(json.dump(2)));
            return BadModel{model, model + "/" + bad};
        };
    };
    addCase("index/lists a tensor not in its shard", editIndex([=](nlohmann::json& json) {
                json["weight_map"]["transformer.extra.weight"] = shard2;
                return shard2;
            }),
            {"transformer.extra.weight", "not in this shard"});
    addCase("index/places a tensor in the wrong shard", editIndex([=](nlohmann::json& json) {
                json["weight_map"]["transformer.output_layer.weight"] = shard1;
                return shard1;
            }),
            {"output_layer", "not in this shard"});
    addCase("index/names a missing shard", editIndex([=](nlohmann::json& json) {
                json["weight_map"]["transformer.output_layer.weight"] =
                    "pytorch_model-00003-of-00003.bin";
                return std::string("pytorch_model-00003-of-00003.bin");
            }),
            {"cannot open|no such file"});
    addCase("index/shard path with ..", editIndex([=](nlohmann::json& json) {
                json["weight_map"]["transformer.output_layer.weight"] = "../" + shard2;
                return index;
            }),
            {"invalid shard"});
    addCase("index/without weight_map", editIndex([=](nlohmann::json& json) {
                json.erase("weight_map");
                return index;
            }),
            {"weight_map"});
    addCase("dir/pytorch_model.bin given instead of its directory",
            [this](const std::string& dir) {
                const std::string file = copyModel(dir) + "/pytorch_model.bin";
                return BadModel{file, file};
            },
            {"directory"});
    addCase("dir/no weights at all",
            [this](const std::string& dir) {
                const std::string model = copyModel(dir);
                fs::remove(model + "/pytorch_model.bin");
                return BadModel{model, model};
            },
            {"pytorch_model.bin", "model.safetensors"});
}

void TestTorchCheckpoint::malformedInputIsRefused() {
    QFETCH(Maker, make);
    QFETCH(QStringList, keywords);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const BadModel bad = make(dir.path().toStdString());
    const test::ChildOutcome outcome = test::runInChild([&] { (void)openModelFiles(bad.open); });
    const QString message = QString::fromStdString(outcome.message);
    QVERIFY2(outcome.kind == "error",
             qPrintable(QString::fromStdString(outcome.kind) + ": " + message));
    const QString badFile = QString::fromStdString(bad.badFile);
    QVERIFY2(message.startsWith(badFile + ": "),
             qPrintable("the message does not start with \"" + badFile + ": \": " + message));
    for (const QString& keyword : keywords)
        QVERIFY2(containsKeyword(message, keyword),
                 qPrintable("the message lacks \"" + keyword + "\": " + message));
    QVERIFY2(!message.contains('\n'), qPrintable("the message spans lines: " + message));
    QVERIFY2(outcome.peakRssKiB < kPeakRssLimitKiB,
             qPrintable(QStringLiteral("peak RSS %1 MiB").arg(outcome.peakRssKiB / 1024)));
}

QTEST_APPLESS_MAIN(TestTorchCheckpoint)
#include "test_torch_checkpoint.moc"
