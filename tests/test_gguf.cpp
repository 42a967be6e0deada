// GGUF writer → reader round trips: every metadata value type (nested arrays included), tensors of
// each supported type read zero-copy from the mapping, dimension order, alignment.

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>

#include "core/dtype_codec.h"
#include "core/error.h"
#include "io/gguf_file.h"
#include "io/gguf_writer.h"

using namespace inferlens;

namespace {

TensorSource sequenceTensor(const std::string& name, DType dtype, std::vector<int64_t> shape) {
    return {name, dtype, std::move(shape), [dtype](std::span<std::byte> out) {
                const int64_t count = out.size() / dtypeInfo(dtype).blockBytes;
                std::vector<float> values(count);
                for (int64_t i = 0; i < count; ++i)
                    values[i] = float(i) * 0.5f - 3.0f;
                encodeRow(dtype, values, out.data());
            }};
}

}  // namespace

class TestGguf : public QObject {
    Q_OBJECT
  private slots:
    void everyMetadataTypeRoundTrips() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("meta.gguf").toStdString();
        GgufArray nested;
        nested.elementType = GgufType::Array;
        nested.arrays = {GgufArray::ofInt32({1, 2, 3}), GgufArray::ofStrings({"x", ""})};
        const std::vector<GgufKeyValue> expected{
            {"t.u8", {uint8_t(200)}},
            {"t.i8", {int8_t(-100)}},
            {"t.u16", {uint16_t(60000)}},
            {"t.i16", {int16_t(-30000)}},
            {"t.u32", {uint32_t(4000000000)}},
            {"t.i32", {int32_t(-2000000000)}},
            {"t.f32", {1.5f}},
            {"t.bool", {true}},
            {"t.string", {std::string("你好, GGUF")}},
            {"t.array.f32", {GgufArray::ofFloats({0.25f, -1.0f})}},
            {"t.array.strings", {GgufArray::ofStrings({"a", "bc", "\xe2\x96\x81"})}},
            {"t.array.nested", {nested}},
            {"t.u64", {uint64_t(1) << 63}},
            {"t.i64", {int64_t(-1) << 62}},
            {"t.f64", {3.141592653589793}},
        };
        GgufWriter writer;
        for (const auto& entry : expected)
            writer.set(entry.key, entry.value);
        writer.write(path);

        const GgufFile file(path);
        QCOMPARE(file.version(), 3u);
        QCOMPARE(file.metadata().size(), expected.size());
        for (size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(QString::fromStdString(file.metadata()[i].key),
                     QString::fromStdString(expected[i].key));
            QVERIFY2(file.metadata()[i].value == expected[i].value, expected[i].key.c_str());
        }
        QCOMPARE(file.requireInteger("t.u16"), int64_t(60000));
        QCOMPARE(*file.optionalNumber("t.f32"), 1.5);
        QCOMPARE(QString::fromStdString(file.requireString("t.string")), QString("你好, GGUF"));
        QVERIFY_THROWS_EXCEPTION(Error, file.requireInteger("t.string"));
        QVERIFY_THROWS_EXCEPTION(Error, file.requireInteger("t.absent"));
        QVERIFY_THROWS_EXCEPTION(Error, file.optionalInteger("t.u64"));  // 2^63 does not fit int64
    }

    void tensorsAreViewsIntoTheFileInEveryType() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("tensors.gguf").toStdString();
        GgufWriter writer;
        writer.set("general.alignment", {uint32_t(64)});
        writer.addTensor(sequenceTensor("a.f32", DType::F32, {3, 5}));
        writer.addTensor(sequenceTensor("b.f16", DType::F16, {7}));
        writer.addTensor(sequenceTensor("c.bf16", DType::BF16, {2, 3, 4}));
        writer.write(path);

        const GgufFile file(path);
        QCOMPARE(file.alignment(), 64u);
        QCOMPARE(file.tensors().size(), size_t(3));
        const std::vector<std::vector<int64_t>> shapes{{3, 5}, {7}, {2, 3, 4}};
        for (size_t t = 0; t < 3; ++t) {
            const TensorView& tensor = file.tensors()[t];
            QCOMPARE(tensor.shape, shapes[t]);
            QCOMPARE(reinterpret_cast<uintptr_t>(tensor.data) % 64, uintptr_t(0));
            std::vector<float> values(tensor.elementCount());
            decodeRow(tensor.dtype, tensor.data, values);
            for (size_t i = 0; i < values.size(); ++i)
                QCOMPARE(values[i], float(i) * 0.5f - 3.0f);
        }
        QCOMPARE(file.tensors()[1].dtype, DType::F16);
        QCOMPARE(file.tensors()[2].dtype, DType::BF16);
    }

    void dimensionsAreStoredContiguousFirst() {
        // GGUF's ne[0] is the contiguous dimension: a PyTorch [3, 5] tensor is stored as ne = {5,
        // 3}.
        QTemporaryDir dir;
        const std::string path = dir.filePath("dims.gguf").toStdString();
        GgufWriter writer;
        writer.addTensor(sequenceTensor("m", DType::F32, {3, 5}));
        writer.write(path);
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        // magic, version, n_tensors, n_kv, then the tensor info: name (8 + 1), n_dims, ne[0],
        // ne[1].
        const int infoStart = 4 + 4 + 8 + 8 + 8 + 1;
        uint32_t dims;
        int64_t ne[2];
        std::memcpy(&dims, bytes.constData() + infoStart, 4);
        std::memcpy(ne, bytes.constData() + infoStart + 4, 16);
        QCOMPARE(dims, 2u);
        QCOMPARE(ne[0], int64_t(5));
        QCOMPARE(ne[1], int64_t(3));
    }

    void version2FilesAreRead() {
        // Version 2 has the same layout as 3 (64-bit counts and lengths); only the number differs.
        QTemporaryDir dir;
        const std::string path = dir.filePath("v2.gguf").toStdString();
        GgufWriter writer;
        writer.set("general.name", {std::string("v2")});
        writer.addTensor(sequenceTensor("t", DType::F16, {2, 4}));
        writer.write(path);
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.seek(4));
        const uint32_t version = 2;
        QCOMPARE(file.write(reinterpret_cast<const char*>(&version), 4), qint64(4));
        file.close();
        const GgufFile v2(path);
        QCOMPARE(v2.version(), 2u);
        QCOMPARE(QString::fromStdString(v2.requireString("general.name")), QString("v2"));
        QCOMPARE(v2.tensors().at(0).shape, (std::vector<int64_t>{2, 4}));
    }

    void failedWriteLeavesNoFile() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("partial.gguf").toStdString();
        GgufWriter writer;
        writer.addTensor(
            {"bad", DType::F32, {4}, [](std::span<std::byte>) { throw Error("fill failed"); }});
        QVERIFY_THROWS_EXCEPTION(Error, writer.write(path));
        QVERIFY(!QFile::exists(QString::fromStdString(path)));
        QVERIFY(!QFile::exists(QString::fromStdString(path + ".partial")));
    }
};

QTEST_APPLESS_MAIN(TestGguf)
#include "test_gguf.moc"
