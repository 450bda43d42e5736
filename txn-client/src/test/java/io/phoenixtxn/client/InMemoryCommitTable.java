package io.phoenixtxn.client;

import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A {@link CommitTable} in memory with the commit table's rules (a commit lands only where no invalid marker is, an
 * invalid marker only where no commit is), for unit tests of what sits on top of the seam, in this module and (test
 * jar) the modules above.
 */
public final class InMemoryCommitTable implements CommitTable {
    /** One row: a commit timestamp and recovery record, or an invalid marker. */
    private record Row(long commitTs, byte[] recoveryRecord, boolean invalid) {
    }

    private final NavigableMap<Long, Row> rows = new ConcurrentSkipListMap<>();
    private final AtomicInteger lookups = new AtomicInteger();

    @Override
    public synchronized boolean tryCommit(long txId, long commitTs, byte[] recoveryRecord) {
        Row row = rows.get(txId);
        if (row != null && row.invalid()) {
            return false;
        }
        rows.put(txId, new Row(commitTs, recoveryRecord, false));
        return true;
    }

    @Override
    public byte[] recoveryRecord(long txId) {
        Row row = rows.get(txId);
        return row == null || row.invalid() ? null : row.recoveryRecord();
    }

    @Override
    public Entry lookup(long txId) {
        lookups.incrementAndGet();
        Row row = rows.get(txId);
        if (row == null) {
            return Entry.ABSENT;
        }
        return row.invalid() ? Entry.INVALIDATED : Entry.committed(row.commitTs());
    }

    @Override
    public synchronized boolean tryInvalidate(long txId) {
        Row row = rows.get(txId);
        if (row != null && !row.invalid()) {
            return false;
        }
        rows.put(txId, new Row(-1, null, true));
        return true;
    }

    @Override
    public void delete(long txId) {
        rows.remove(txId);
    }

    @Override
    public Stream<CommittedEntry> committedBefore(long txIdBelow) {
        return rows.headMap(txIdBelow, false).entrySet().stream()
                .filter(row -> !row.getValue().invalid())
                .map(InMemoryCommitTable::committed);
    }

    /** How many times {@link #lookup} was called: what a reader's resolution cost. */
    public int lookups() {
        return lookups.get();
    }

    private static CommittedEntry committed(Map.Entry<Long, Row> row) {
        return new CommittedEntry(row.getKey(), row.getValue().commitTs(), row.getValue().recoveryRecord());
    }
}
