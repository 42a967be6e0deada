// safetensors writer → reader round trip.

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "core/dtype_codec.h"
#include "io/safetensors_file.h"

using namespace inferlens;

class TestSafetensors : public QObject {
    Q_OBJECT
  private slots:
    void roundTripKeepsNamesShapesTypesAndValues() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("model.safetensors").toStdString();
        std::vector<TensorSource> sources;
        const std::vector<DType> dtypes{DType::F32, DType::F16, DType::BF16};
        for (size_t t = 0; t < dtypes.size(); ++t) {
            const DType dtype = dtypes[t];
            sources.push_back({"layer." + std::to_string(t) + ".weight",
                               dtype,
                               {4, int64_t(t + 2)},
                               [dtype](std::span<std::byte> out) {
                                   std::vector<float> values(out.size() /
                                                             dtypeInfo(dtype).blockBytes);
                                   for (size_t i = 0; i < values.size(); ++i)
                                       values[i] = 0.25f * float(i);
                                   encodeRow(dtype, values, out.data());
                               }});
        }
        writeSafetensors(path, sources);

        QFile raw(QString::fromStdString(path));
        QVERIFY(raw.open(QIODevice::ReadOnly));
        uint64_t headerLength = 0;
        raw.read(reinterpret_cast<char*>(&headerLength), 8);
        QCOMPARE(headerLength % 8, uint64_t(0));  // the header is padded so that data is aligned

        const SafetensorsFile file(path);
        QCOMPARE(file.tensors().size(), sources.size());
        for (const TensorView& tensor : file.tensors()) {
            const size_t t = size_t(tensor.name[6] - '0');
            QCOMPARE(tensor.dtype, dtypes[t]);
            QCOMPARE(tensor.shape, (std::vector<int64_t>{4, int64_t(t + 2)}));
            std::vector<float> values(tensor.elementCount());
            decodeRow(tensor.dtype, tensor.data, values);
            for (size_t i = 0; i < values.size(); ++i)
                QCOMPARE(values[i], 0.25f * float(i));
        }
    }
};

QTEST_APPLESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
