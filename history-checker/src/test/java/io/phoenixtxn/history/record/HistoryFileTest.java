package io.phoenixtxn.history.record;

import io.phoenixtxn.history.Event;
import io.phoenixtxn.history.History;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.Op;
import io.phoenixtxn.history.OpType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Recording from threads, writing a history as JSON lines and reading it back. */
class HistoryFileTest {
    @TempDir
    Path dir;

    @Test
    void aRecordedHistoryRoundTripsThroughAFile() throws IOException {
        Recorder recorder = new Recorder();
        recorder.invoke(0, Names.TXN, List.of(Mop.read(1), Mop.append(1, 5)));
        recorder.invoke(1, Names.READ, List.of(Mop.read(1), Mop.read(2)));
        recorder.ok(0, List.of(Mop.read(1, List.of(3L, 4L)), Mop.append(1, 5)));
        recorder.fail(1, "ERROR 523 (42900): conflict \"quoted\"\nsecond line \u00e9\t\\");
        recorder.invoke(2, Names.TRANSFER, List.of(new Mop(Names.TRANSFER, 7, List.of(0L, 1L, 25L))));
        recorder.info(2, "ERROR 1077: outcome unknown");
        recorder.invoke(3, Names.READ, List.of(Mop.read(9)));   // still in flight at the end
        History history = recorder.history();

        Path file = dir.resolve("history.jsonl");
        HistoryFile.write(history, file);
        History back = HistoryFile.read(file);

        assertEquals(history.events(), back.events());
        assertEquals(history.ops(), back.ops());
        List<Op> ops = back.ops();
        assertEquals(4, ops.size());
        assertEquals(OpType.OK, ops.get(0).type());
        assertEquals(List.of(3L, 4L), ops.get(0).value().get(0).list());
        assertEquals(OpType.FAIL, ops.get(1).type());
        assertTrue(ops.get(1).error().contains("\"quoted\"\nsecond line \u00e9\t\\"));
        assertEquals(OpType.INFO, ops.get(2).type());
        assertEquals(List.of(0L, 1L, 25L), ops.get(2).value().get(0).list());
        assertEquals(OpType.INFO, ops.get(3).type(), "an invocation that never completed is unknown");
        assertEquals(Long.MAX_VALUE, ops.get(3).completeTime());
        assertEquals(7, Files.readAllLines(file, StandardCharsets.UTF_8).size(), "one event per line");
    }

    @Test
    void aCorruptLineIsNamed() throws IOException {
        Path file = dir.resolve("bad.jsonl");
        Files.writeString(file, "{\"index\":0,\"type\":\"invoke\",\"process\":0,\"f\":\"txn\",\"time\":1,\"value\":[]}\n"
                + "{\"index\":1,\"type\":\"ok\",\"process\":0,\"f\":\"txn\",\"time\":2.5,\"value\":[]}\n");
        IOException e = assertThrows(IOException.class, () -> HistoryFile.read(file));
        assertTrue(e.getMessage().contains("line 2") && e.getMessage().contains("integers"), e.getMessage());
    }

    @Test
    void aCompletionWithoutAnInvocationIsRefused() {
        Event ok = new Event(0, OpType.OK, 0, Names.TXN, 1, List.of(), null);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> History.of(List.of(ok)));
        assertTrue(e.getMessage().contains("without an invocation"), e.getMessage());
    }

    @Test
    void aProcessHasOneOperationInFlight() {
        Recorder recorder = new Recorder();
        recorder.invoke(0, Names.TXN, List.of());
        assertThrows(IllegalStateException.class, () -> recorder.invoke(0, Names.TXN, List.of()));
        assertThrows(IllegalStateException.class, () -> recorder.ok(1, List.of()));
    }

    @Test
    void concurrentRecordingKeepsIndicesTimesAndPairs() throws Exception {
        Recorder recorder = new Recorder();
        int threads = 4;
        int opsPerThread = 500;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> futures = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int process = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < opsPerThread; i++) {
                        recorder.invoke(process, Names.TXN, List.of(Mop.append(process, i)));
                        recorder.ok(process, List.of(Mop.append(process, i)));
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        History history = recorder.history();   // History.of checks indices, times and pairing
        assertEquals(threads * opsPerThread * 2, history.events().size());
        assertEquals(threads * opsPerThread, history.ops().size());
        assertTrue(history.ops().stream().allMatch(Op::isOk));
        assertEquals(threads * opsPerThread, recorder.okCount(Names.TXN));
    }

    @Test
    void awaitingAcknowledgementsWaitsForThemOrTimesOut() throws Exception {
        Recorder recorder = new Recorder();
        assertFalse(recorder.awaitOkCount(Names.TXN, 1, Duration.ofMillis(20)));
        Thread writer = new Thread(() -> {
            recorder.invoke(0, Names.TXN, List.of());
            recorder.ok(0, List.of());
        });
        writer.start();
        assertTrue(recorder.awaitOkCount(Names.TXN, 1, Duration.ofSeconds(30)));
        writer.join();
    }
}
