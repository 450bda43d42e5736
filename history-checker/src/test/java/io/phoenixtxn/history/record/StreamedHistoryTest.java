package io.phoenixtxn.history.record;

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
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Histories streamed to a file event by event, as a client JVM that may be killed with -9 writes them, and
 * continued by another JVM (the final read after the kill) on the same clock.
 */
class StreamedHistoryTest {
    @TempDir
    Path dir;

    @Test
    void everyEventIsOnDiskWhenTheRecorderReturns() throws IOException {
        Path file = dir.resolve("h.jsonl");
        try (HistoryFile.Appender sink = HistoryFile.appender(file)) {
            Recorder recorder = new Recorder(System.nanoTime(), sink);
            recorder.invoke(0, Names.TXN, List.of(Mop.read(1), Mop.append(1, 5)));
            assertEquals(1, Files.readAllLines(file).size(), "the invocation is in the file before the call returns");
            recorder.ok(0, List.of(Mop.read(1, List.of()), Mop.append(1, 5)));
            assertEquals(recorder.history().events(), HistoryFile.read(file).events());
        }
    }

    @Test
    void aTornLastLineOfAKilledWriterIsDroppedAndItsOperationStaysUnknown() throws IOException {
        Path file = dir.resolve("killed.jsonl");
        try (HistoryFile.Appender sink = HistoryFile.appender(file)) {
            Recorder recorder = new Recorder(System.nanoTime(), sink);
            recorder.invoke(0, Names.TXN, List.of(Mop.read(1), Mop.append(1, 5)));
        }
        // the JVM died while writing the completion: half a line, no newline
        Files.writeString(file, "{\"index\":1,\"type\":\"ok\",\"proc", StandardCharsets.UTF_8, StandardOpenOption.APPEND);

        assertThrows(IOException.class, () -> HistoryFile.read(file), "a strict read refuses the torn line");
        HistoryFile.Partial partial = HistoryFile.readWritten(file);
        assertTrue(partial.tornTail(), "the torn tail is reported");
        History history = partial.history();
        assertEquals(1, history.events().size());
        Op op = history.ops().get(0);
        assertEquals(OpType.INFO, op.type(), "the operation whose completion was lost is unknown: " + op);
    }

    @Test
    void aCorruptLineBeforeTheEndIsStillAnError() throws IOException {
        Path file = dir.resolve("corrupt.jsonl");
        Files.writeString(file, "{\"index\":0,\"type\":\"inv\n{\"index\":1}\n", StandardCharsets.UTF_8);
        IOException e = assertThrows(IOException.class, () -> HistoryFile.readWritten(file));
        assertTrue(e.getMessage().contains("line 1"), e.getMessage());
    }

    @Test
    void anotherRecorderContinuesTheHistoryOnTheSameClock() throws IOException {
        long origin = System.nanoTime();
        Path file = dir.resolve("continued.jsonl");
        try (HistoryFile.Appender sink = HistoryFile.appender(file)) {
            Recorder first = new Recorder(origin, sink);
            first.invoke(0, Names.TXN, List.of(Mop.append(1, 5)));
            first.ok(0, List.of(Mop.append(1, 5)));
            first.invoke(1, Names.TXN, List.of(Mop.append(1, 6)));   // in flight when its JVM dies
        }
        History written = HistoryFile.readWritten(file).history();
        try (HistoryFile.Appender sink = HistoryFile.appender(file)) {
            Recorder next = Recorder.continuing(written, origin, sink);
            int process = next.unusedProcess();
            assertFalse(List.of(0, 1).contains(process), "a process of its own: " + process);
            next.invoke(process, Names.FINAL_READ, List.of(Mop.read(1)));
            next.ok(process, List.of(Mop.read(1, List.of(5L))));
        }
        History all = HistoryFile.read(file);
        assertEquals(5, all.events().size());
        assertEquals(OpType.INFO, all.ops().get(1).type(), "the dead JVM's operation stays unknown");
        assertEquals(OpType.OK, all.ops().get(2).type());
    }

    @Test
    void aContinuationWhoseClockIsBehindTheHistoryIsRefused() throws IOException {
        Path file = dir.resolve("clock.jsonl");
        long origin = System.nanoTime();
        try (HistoryFile.Appender sink = HistoryFile.appender(file)) {
            Recorder first = new Recorder(origin, sink);
            first.invoke(0, Names.TXN, List.of());
            first.ok(0, List.of());
        }
        History written = HistoryFile.read(file);
        // a recorder whose origin lies an hour later: its times would come before the history's last event
        Recorder wrong = Recorder.continuing(written, origin + 3_600_000_000_000L, event -> { });
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> wrong.invoke(5, Names.READ, List.of()));
        assertTrue(e.getMessage().contains("clock"), e.getMessage());
    }
}
