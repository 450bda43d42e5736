package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitTable;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The commit table's contract in memory (a commit lands unless invalidated, a marker unless committed), counting
 * calls, with a switch that makes every call fail as an unreachable table would, and a hook that runs before each
 * force-abort (to let a writer commit and clean up in between).
 */
final class FakeCommitTable implements CommitTable {
    private final Map<Long, Entry> entries = new HashMap<>();
    int lookups;
    int invalidations;
    int deletes;
    volatile boolean unreachable;
    Runnable beforeInvalidate = () -> { };

    @Override
    public synchronized boolean tryCommit(long txId, long commitTs, byte[] recoveryRecord) throws IOException {
        fail();
        Entry e = entries.get(txId);
        if (e != null && e.state() == Entry.State.INVALIDATED) {
            return false;
        }
        entries.put(txId, Entry.committed(commitTs));
        return true;
    }

    @Override
    public byte[] recoveryRecord(long txId) {
        return null;
    }

    @Override
    public synchronized Entry lookup(long txId) throws IOException {
        fail();
        lookups++;
        return entries.getOrDefault(txId, Entry.ABSENT);
    }

    @Override
    public boolean tryInvalidate(long txId) throws IOException {
        fail();
        beforeInvalidate.run();
        synchronized (this) {
            invalidations++;
            return entries.computeIfAbsent(txId, id -> Entry.INVALIDATED).state() == Entry.State.INVALIDATED;
        }
    }

    @Override
    public synchronized void delete(long txId) throws IOException {
        fail();
        deletes++;
        entries.remove(txId);
    }

    @Override
    public Stream<CommittedEntry> committedBefore(long txIdBelow) {
        return Stream.empty();
    }

    synchronized Entry entry(long txId) {
        return entries.getOrDefault(txId, Entry.ABSENT);
    }

    private void fail() throws IOException {
        if (unreachable) {
            throw new IOException("commit table unreachable (test)");
        }
    }
}
