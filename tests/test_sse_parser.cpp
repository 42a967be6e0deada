// The server-sent-events parser against streams written out by hand from the format (WHATWG HTML,
// "Server-sent events", the event stream interpretation), fed in every possible cut: whole, byte
// by byte, and split at every position into two and three pieces.

#include <QTest>

#include <string>
#include <vector>

#include "core/error.h"
#include "remote/sse_parser.h"

using namespace inferlens;
using namespace inferlens::remote;

namespace {

struct Expected {
    std::string name;
    std::string data;
    bool done = false;
};

std::vector<SseEvent> feedInPieces(std::string_view stream, const std::vector<size_t>& cuts) {
    SseParser parser;
    std::vector<SseEvent> events;
    size_t start = 0;
    for (size_t cut : cuts) {
        for (SseEvent& event : parser.feed(stream.substr(start, cut - start)))
            events.push_back(std::move(event));
        start = cut;
    }
    for (SseEvent& event : parser.feed(stream.substr(start)))
        events.push_back(std::move(event));
    return events;
}

bool same(const std::vector<SseEvent>& actual, const std::vector<Expected>& expected) {
    if (actual.size() != expected.size())
        return false;
    for (size_t i = 0; i < actual.size(); ++i)
        if (actual[i].name != expected[i].name || actual[i].data != expected[i].data ||
            actual[i].done != expected[i].done)
            return false;
    return true;
}

// Every cut into one, two and three pieces, and byte by byte.
void checkEveryChunking(std::string_view stream, const std::vector<Expected>& expected) {
    QVERIFY2(same(feedInPieces(stream, {}), expected), "whole stream");
    std::vector<size_t> everyByte;
    for (size_t i = 1; i < stream.size(); ++i)
        everyByte.push_back(i);
    QVERIFY2(same(feedInPieces(stream, everyByte), expected), "byte by byte");
    for (size_t first = 0; first <= stream.size(); ++first)
        for (size_t second = first; second <= stream.size(); ++second)
            if (!same(feedInPieces(stream, {first, second}), expected))
                QFAIL(qPrintable(QString("cut at %1 and %2").arg(first).arg(second)));
}

}  // namespace

class TestSseParser : public QObject {
    Q_OBJECT
  private slots:
    void streamOfTheOpenAiShapeEndsAtDone() {
        // Two chunks and the sentinel, as llama-server writes them ("data: " + JSON + "\n\n").
        const std::string stream =
            "data: {\"a\":1}\n\n"
            "data: {\"b\":2}\n\n"
            "data: [DONE]\n\n";
        checkEveryChunking(
            stream,
            {{"message", "{\"a\":1}"}, {"message", "{\"b\":2}"}, {"message", "[DONE]", true}});
    }

    void crlfAndLoneCrEndLinesLikeLf() {
        checkEveryChunking("data: one\r\n\r\ndata: two\r\rdata: three\n\n",
                           {{"message", "one"}, {"message", "two"}, {"message", "three"}});
        // A CRLF is one line break, also between the lines of one event.
        checkEveryChunking("data: a\r\ndata: b\r\n\r\n", {{"message", "a\nb"}});
    }

    void multiLineDataIsJoinedWithNewlines() {
        // The format's own example: three data lines make one event "YHOO\n+2\n10".
        checkEveryChunking("data: YHOO\ndata: +2\ndata: 10\n\n", {{"message", "YHOO\n+2\n10"}});
    }

    void commentsAndUnknownFieldsAreIgnored() {
        checkEveryChunking(": keep-alive\n\n: ping\ndata: x\nid: 7\nretry: 1000\nfoo: bar\n\n",
                           {{"message", "x"}});
    }

    void eventNamesApplyToTheirEventOnly() {
        checkEveryChunking("event: add\ndata: 73857293\n\ndata: plain\n\n",
                           {{"add", "73857293"}, {"message", "plain"}});
    }

    void spaceAfterColonIsOptionalAndOnlyOneIsDropped() {
        checkEveryChunking("data:tight\n\ndata:  two spaces\n\ndata\n\n",
                           {{"message", "tight"}, {"message", " two spaces"}, {"message", ""}});
    }

    void eventWithoutDataIsNotDispatched() {
        checkEveryChunking("event: lonely\n\n\n\ndata: after\n\n", {{"message", "after"}});
    }

    void llamaServerErrorLineBecomesAnErrorEvent() {
        // llama-server b4747 (examples/server/server.cpp, server_sent_event(sink, "error", ...))
        // writes a failure mid-stream as "error: {json}\n\n".
        checkEveryChunking(
            "data: {\"a\":1}\n\nerror: "
            "{\"code\":500,\"message\":\"boom\",\"type\":\"server_error\"}\n\n",
            {{"message", "{\"a\":1}"},
             {"error", "{\"code\":500,\"message\":\"boom\",\"type\":\"server_error\"}"}});
    }

    void byteOrderMarkAtTheStartIsSkipped() {
        checkEveryChunking(
            "\xEF\xBB\xBF"
            "data: x\n\n",
            {{"message", "x"}});
    }

    void bytesAfterDoneAreIgnored() {
        SseParser parser;
        const auto events = parser.feed("data: [DONE]\n\ndata: late\n\n");
        QCOMPARE(events.size(), size_t(1));
        QVERIFY(events[0].done);
        QVERIFY(parser.done());
        QVERIFY(parser.feed("data: later\n\n").empty());
    }

    void unfinishedEventIsReportedNotDispatched() {
        SseParser parser;
        QVERIFY(parser.feed("data: {\"half\":").empty());
        QVERIFY(parser.hasPartialEvent());
        SseParser complete;
        QCOMPARE(complete.feed("data: x\n\n").size(), size_t(1));
        QVERIFY(!complete.hasPartialEvent());
    }

    void garbageDoesNotCrash() {
        // Bytes of every value, NULs and unpaired CRs included, in a fixed pseudo-random order.
        std::string noise;
        uint32_t state = 12345;
        for (int i = 0; i < 100000; ++i) {
            state = state * 1664525u + 1013904223u;
            noise.push_back(char(state >> 24));
        }
        SseParser parser;
        size_t events = 0;
        for (size_t start = 0; start < noise.size(); start += 977)
            events += parser.feed(std::string_view(noise).substr(start, 977)).size();
        QVERIFY(events < noise.size());
    }

    void endlessLineIsAnError() {
        SseParser parser;
        const std::string block(1 << 20, 'x');
        parser.feed("data: ");
        bool threw = false;
        try {
            for (size_t total = 0; total <= SseParser::kMaximumLineBytes; total += block.size())
                parser.feed(block);
        } catch (const Error& error) {
            threw = std::string(error.what()).find("longer than") != std::string::npos;
        }
        QVERIFY(threw);
    }
};

QTEST_APPLESS_MAIN(TestSseParser)
#include "test_sse_parser.moc"
