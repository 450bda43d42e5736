package io.phoenixtxn.chaos.client;

import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.workload.Invocation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client JVM's halt switch: nothing until armed by its trigger file; then the first workload commit of writes
 * that reaches the armed point writes its record and halts, once; read-only operations, other points and commits
 * outside the workload (setup, final read) never halt.
 */
class HaltSwitchTest {
    @TempDir
    Path dir;
    private final List<Integer> halts = new ArrayList<>();

    @AfterEach
    void clear() {
        CurrentOperation.clear();
    }

    @Test
    void haltsOnceAtTheArmedPointOnAWorkloadWriteWithItsRecord() throws IOException {
        HaltSwitch halt = newSwitch();
        CurrentOperation.set(new Invocation(Names.TXN, List.of(Mop.read(1), Mop.append(1, 5))));
        halt.afterCommitPoint(10, 11);
        assertTrue(halts.isEmpty(), "not armed yet");

        Files.writeString(dir.resolve("trigger"), HaltPoint.AFTER_COMMIT_POINT.wireName(), StandardCharsets.UTF_8);
        assertTrue(halt.pollTrigger());
        halt.afterTmDecision(12, 13);
        assertTrue(halts.isEmpty(), "armed for the commit point, not the decision");
        halt.afterCommitPoint(12, 13);
        assertEquals(List.of(HaltSwitch.HALT_STATUS), halts);
        HaltRecord record = HaltRecord.read(dir.resolve("record"));
        assertEquals(HaltPoint.AFTER_COMMIT_POINT, record.point());
        assertEquals(12, record.txId());
        assertEquals(13, record.commitTs());
        assertEquals(List.of(Mop.read(1), Mop.append(1, 5)), record.value());

        halt.afterCommitPoint(14, 15);
        assertEquals(1, halts.size(), "only once");
    }

    @Test
    void readOnlyOperationsAndCommitsOutsideTheWorkloadNeverHalt() throws IOException {
        HaltSwitch halt = newSwitch();
        Files.writeString(dir.resolve("trigger"), HaltPoint.AFTER_TM_DECISION.wireName(), StandardCharsets.UTF_8);
        assertTrue(halt.pollTrigger());
        halt.afterTmDecision(20, 21); // no current operation: the setup or the final read
        CurrentOperation.set(new Invocation(Names.READ, List.of(Mop.read(1), Mop.read(2))));
        halt.afterTmDecision(22, 23);
        assertTrue(halts.isEmpty());
        assertFalse(Files.exists(dir.resolve("record")));
        CurrentOperation.set(new Invocation(Names.TRANSFER, List.of(new Mop(Names.TRANSFER, 7, List.of(0L, 1L, 5L)))));
        halt.afterTmDecision(24, 25);
        assertEquals(List.of(HaltSwitch.HALT_STATUS), halts, "a bank transfer writes");
    }

    private HaltSwitch newSwitch() {
        return new HaltSwitch(dir.resolve("trigger"), dir.resolve("record"), System.nanoTime(), halts::add);
    }
}
