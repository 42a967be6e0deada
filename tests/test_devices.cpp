// Device discovery: CUDA devices are listed when the backend is compiled in and a GPU is present;
// otherwise the reason is reported (and this test says so visibly rather than passing silently).

#include <QTest>

#include "backend/devices.h"

using namespace inferlens;

class TestDevices : public QObject {
    Q_OBJECT
  private slots:
    void cudaDevicesAreDescribedOrTheirAbsenceExplained() {
        const CudaAvailability cuda = queryCudaDevices();
        if (cuda.devices.empty()) {
            QVERIFY(!cuda.message.empty());
            QSKIP(qPrintable(
                QString("GPU test skipped: %1").arg(QString::fromStdString(cuda.message))));
        }
        QVERIFY(cuda.compiledIn);
        for (const CudaDevice& device : cuda.devices) {
            QVERIFY(!device.name.empty());
            QVERIFY(device.totalMemoryBytes > 0);
            QVERIFY(device.computeCapabilityMajor >= 5);
        }
    }
};

QTEST_APPLESS_MAIN(TestDevices)
#include "test_devices.moc"
