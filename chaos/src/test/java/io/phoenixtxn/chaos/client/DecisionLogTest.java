package io.phoenixtxn.chaos.client;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client's decision log: one line per decision on disk when the hook returns; a torn tail is dropped. */
class DecisionLogTest {
    @TempDir
    Path dir;

    @Test
    void everyDecisionIsOnDiskWhenTheHookReturnsAndATornTailIsDropped() throws IOException {
        Path file = dir.resolve("decisions.log");
        long origin = System.nanoTime();
        DecisionLog log = DecisionLog.appendingTo(file, origin);
        log.afterTmDecision(7, 70);
        log.afterTmDecision(8, 80);
        List<DecisionLog.Decision> read = DecisionLog.read(file);
        assertEquals(List.of(7L, 8L), read.stream().map(DecisionLog.Decision::txId).toList());
        assertEquals(List.of(70L, 80L), read.stream().map(DecisionLog.Decision::commitTs).toList());
        assertTrue(read.get(0).timeNanos() >= 0 && read.get(0).timeNanos() <= read.get(1).timeNanos());
        Files.writeString(file, "123 9", StandardCharsets.UTF_8, StandardOpenOption.APPEND); // killed mid-line
        assertEquals(2, DecisionLog.read(file).size());
    }

    @Test
    void aMissingLogHasNoDecisionsAndAGarbledLineIsAnError() throws IOException {
        assertTrue(DecisionLog.read(dir.resolve("absent")).isEmpty());
        Path file = dir.resolve("bad.log");
        Files.writeString(file, "1 2 3\nnot a decision\n", StandardCharsets.UTF_8);
        IOException e = assertThrows(IOException.class, () -> DecisionLog.read(file));
        assertTrue(e.getMessage().contains("bad.log:2"), e.getMessage());
    }
}
