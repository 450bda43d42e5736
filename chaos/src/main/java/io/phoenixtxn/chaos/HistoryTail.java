package io.phoenixtxn.chaos;

import io.phoenixtxn.history.Event;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.OpType;
import io.phoenixtxn.history.record.HistoryFile;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Follows a client's history file while the client writes it: reads complete lines as they appear and keeps the
 * acknowledged commits of read-write operations (list-append {@code txn}, bank {@code transfer}) with their
 * invocation and completion times, so the driver can wait for "a commit after the fault" during the run. The checks
 * read the whole file again at the end; this is only the run's live view.
 */
final class HistoryTail {
    /** An acknowledged read-write operation: invoked and completed at these run-clock times. */
    record Commit(long invokedAt, long completedAt) {
    }

    private final Path file;
    private long position;
    private final StringBuilder partial = new StringBuilder();
    private final Map<Integer, Long> invokedAt = new HashMap<>();
    private final List<Commit> commits = new ArrayList<>();
    private long operations;

    HistoryTail(Path file) {
        this.file = file;
    }

    /** Reads what was appended since the last call. */
    synchronized void poll() throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long length = in.length();
            if (length <= position) {
                return;
            }
            in.seek(position);
            byte[] bytes = new byte[(int) Math.min(length - position, 16 << 20)];
            in.readFully(bytes);
            position += bytes.length;
            partial.append(new String(bytes, StandardCharsets.UTF_8));
        }
        int start = 0;
        int newline;
        while ((newline = partial.indexOf("\n", start)) >= 0) {
            String line = partial.substring(start, newline);
            start = newline + 1;
            if (!line.isBlank()) {
                take(HistoryFile.parseEvent(line));
            }
        }
        partial.delete(0, start);
    }

    private void take(Event e) {
        if (e.type() == OpType.INVOKE) {
            invokedAt.put(e.process(), e.time());
            return;
        }
        Long invoked = invokedAt.remove(e.process());
        operations++;
        if (e.type() == OpType.OK && invoked != null && writes(e.f())) {
            commits.add(new Commit(invoked, e.time()));
        }
    }

    static boolean writes(String f) {
        return Names.TXN.equals(f) || Names.TRANSFER.equals(f);
    }

    /**
     * The first acknowledged commit invoked at or after {@code time}, or null. Commits are kept in completion order
     * (the file's), so the first match in that order completed first.
     */
    synchronized Commit firstCommitInvokedAfter(long time) {
        int low = 0;
        int high = commits.size();
        while (low < high) { // first commit that completed at or after time: none before it can be invoked later
            int mid = (low + high) >>> 1;
            if (commits.get(mid).completedAt() < time) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        for (int i = low; i < commits.size(); i++) {
            if (commits.get(i).invokedAt() >= time) {
                return commits.get(i);
            }
        }
        return null;
    }

    synchronized long commits() {
        return commits.size();
    }

    synchronized long operations() {
        return operations;
    }
}
