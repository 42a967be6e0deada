// Choosing where a model runs, on any machine: device names as users type them, the CUDA
// backend's refusal (with its reason) where there is no GPU, and the shapes `bench --synth` knows.
// (test_devices lists the GPUs; tests/gpu/ runs the backend itself.)

#include <QTest>

#include "backend/cuda_backend.h"
#include "backend/devices.h"
#include "core/error.h"
#include "models/shape_presets.h"

using namespace inferlens;

class TestBackendChoice : public QObject {
    Q_OBJECT
  private slots:
    void devicesAreNamedAsUsersTypeThem() {
        QVERIFY(!parseComputeDevice("cpu").isCuda());
        QVERIFY(parseComputeDevice("cuda").isCuda());
        QCOMPARE(parseComputeDevice("cuda").index, 0);
        QCOMPARE(parseComputeDevice("cuda:3").index, 3);
        QCOMPARE(parseComputeDevice("cuda:3").name(), std::string("cuda:3"));
        QCOMPARE(parseComputeDevice("cpu").name(), std::string("cpu"));
        for (const char* bad : {"", "gpu", "cuda:", "cuda:-1", "cuda:1x", "CUDA", "cuda:0:1"})
            QVERIFY_THROWS_EXCEPTION(Error, parseComputeDevice(bad));
    }

    void withoutAGpuTheCudaBackendRefusesWithItsReason() {
        if (!queryCudaDevices().devices.empty())
            return;  // a GPU is present: tests/gpu/ runs the backend
        const ModelConfig config = shapePreset("tinyllama-1.1b");
        try {
            makeSyntheticCudaForward(config, DType::F16, 1, 0, 64);
            QFAIL("the CUDA backend was made without a GPU");
        } catch (const Error& error) {
            const QString message = QString::fromUtf8(error.what());
            QVERIFY2(message.contains("no usable CUDA device") ||
                         message.contains("no CUDA backend"),
                     error.what());
        }
    }

    void shapePresetsAreKnownByName() {
        const ModelConfig glm = shapePreset("chatglm2-6b");
        QCOMPARE(glm.layerCount, int64_t(28));
        QCOMPARE(glm.kvHeadCount, int64_t(2));
        QVERIFY(glm.qkvBias);
        QCOMPARE(shapePreset("tinyllama-1.1b").ffnSize, int64_t(5632));
        QCOMPARE(shapePresetNames().size(), size_t(2));
        try {
            shapePreset("gpt-5");
            QFAIL("an unknown shape was accepted");
        } catch (const Error& error) {
            QVERIFY(QString::fromUtf8(error.what()).contains("chatglm2-6b, tinyllama-1.1b"));
        }
    }
};

QTEST_APPLESS_MAIN(TestBackendChoice)
#include "test_backend_choice.moc"
