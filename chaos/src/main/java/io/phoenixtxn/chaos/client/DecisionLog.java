package io.phoenixtxn.chaos.client;

import io.phoenixtxn.client.ProtocolHooks;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Every commit decision the TM sent this client JVM ({@link ProtocolHooks#afterTmDecision}), one line each:
 * {@code <run-clock ns> <txId> <commitTs>}, written unbuffered so a JVM killed with -9 keeps every line but perhaps
 * a torn last one. The chaos driver reads these logs to check that a TM primary paused past its lease commits
 * nothing after it resumes: every decision received after the SIGCONT must carry a commit timestamp above the
 * epoch of the primary that took over (a deposed primary's timestamps all lie at or below it; design, HA).
 */
public final class DecisionLog implements ProtocolHooks {
    /** One decision as a client received it. */
    public record Decision(long timeNanos, long txId, long commitTs) {
    }

    private final OutputStream out;
    private final long originNanos;

    private DecisionLog(OutputStream out, long originNanos) {
        this.out = out;
        this.originNanos = originNanos;
    }

    /** Appends to {@code file} (created if absent); times on the run's clock ({@code originNanos}). */
    public static DecisionLog appendingTo(Path file, long originNanos) throws IOException {
        return new DecisionLog(Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                StandardOpenOption.WRITE), originNanos);
    }

    @Override
    public void afterTmDecision(long txId, long commitTs) {
        String line = (System.nanoTime() - originNanos) + " " + txId + " " + commitTs + "\n";
        synchronized (this) {
            try {
                out.write(line.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                // a decision the driver cannot see would make the pause check vacuous for it: fail the commit
                // before its commit point (nothing is committed yet, the outcome is known: aborted)
                throw new UncheckedIOException("cannot log the TM's decision on transaction " + txId, e);
            }
        }
    }

    /** The decisions of a log; a torn last line (a killed JVM) is dropped; a missing file has none. */
    public static List<Decision> read(Path file) throws IOException {
        List<Decision> decisions = new ArrayList<>();
        if (!Files.exists(file)) {
            return decisions;
        }
        String text = Files.readString(file, StandardCharsets.UTF_8);
        int end = text.lastIndexOf('\n');
        if (end < 0) {
            return decisions;
        }
        int number = 0;
        for (String line : text.substring(0, end).split("\n")) {
            number++;
            String[] parts = line.trim().split(" ");
            if (parts.length != 3) {
                throw new IOException(file + ":" + number + ": not '<time> <txId> <commitTs>': " + line);
            }
            try {
                decisions.add(new Decision(Long.parseLong(parts[0]), Long.parseLong(parts[1]),
                        Long.parseLong(parts[2])));
            } catch (NumberFormatException e) {
                throw new IOException(file + ":" + number + ": not '<time> <txId> <commitTs>': " + line, e);
            }
        }
        return decisions;
    }
}
