package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitTable;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Markers of collected writers go once the commit-point horizon passes them, never before. */
class InvalidMarkerJanitorTest {
    private final FakeCommitTable table = new FakeCommitTable();
    private final InvalidMarkerJanitor janitor = new InvalidMarkerJanitor(Runnable::run);

    @Test
    void markersBelowTheCommitPointHorizonGoAtOnceTheOthersWhenItPassesThem() throws IOException {
        for (long writer : new long[] {100, 200, 300}) {
            table.tryInvalidate(writer);
        }
        janitor.offer(table, List.of(100L, 200L, 300L), 250);
        assertEquals(CommitTable.Entry.ABSENT, table.entry(100));
        assertEquals(CommitTable.Entry.ABSENT, table.entry(200));
        assertEquals(CommitTable.Entry.INVALIDATED, table.entry(300), "it may still try its commit point");
        assertEquals(1, janitor.pendingCount());

        janitor.deleteBelow(300);
        assertEquals(CommitTable.Entry.INVALIDATED, table.entry(300));
        janitor.deleteBelow(301);
        assertEquals(CommitTable.Entry.ABSENT, table.entry(300));
        assertEquals(0, janitor.pendingCount());
    }

    @Test
    void aFailedDeletionIsLoggedAndLeavesTheMarker() throws IOException {
        table.tryInvalidate(100);
        table.unreachable = true;
        janitor.offer(table, List.of(100L), 1_000);
        table.unreachable = false;
        assertEquals(CommitTable.Entry.INVALIDATED, table.entry(100));
    }

    @Test
    void anUnknownHorizonDeletesNothing() throws IOException {
        table.tryInvalidate(100);
        janitor.offer(table, List.of(100L), -1);
        assertEquals(CommitTable.Entry.INVALIDATED, table.entry(100));
        assertEquals(1, janitor.pendingCount());
    }
}
