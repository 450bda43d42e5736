package io.phoenixtxn.chaos.client;

import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.workload.Invocation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The client JVM's test-only kill switch ({@link ProtocolHooks}): once armed with a {@link HaltPoint}, the first
 * workload transaction that writes and reaches that point of its commit writes a {@link HaltRecord} and halts the
 * JVM ({@code Runtime.halt}: no shutdown hook, no finally block, no flush: the same as kill -9 at that instant).
 * The fault thus lands exactly where intended instead of wherever a signal happens to find the threads.
 *
 * <p>Armed by the driver through a trigger file holding the point's name ({@link #pollTrigger}, called by a
 * background thread, so the commit path does no I/O until armed). Only operations of the workload halt (the
 * setup's and the final read's commits never do), and only once.
 */
public final class HaltSwitch implements ProtocolHooks {
    /** How the JVM ends; tests replace it. */
    @FunctionalInterface
    interface Halter {
        void halt(int status);
    }

    static final int HALT_STATUS = 137;

    private final Path trigger;
    private final Path record;
    private final long originNanos;
    private final Halter halter;
    private final AtomicBoolean fired = new AtomicBoolean();
    private volatile HaltPoint armed;

    HaltSwitch(Path trigger, Path record, long originNanos, Halter halter) {
        this.trigger = trigger;
        this.record = record;
        this.originNanos = originNanos;
        this.halter = halter;
    }

    public static HaltSwitch halting(Path trigger, Path record, long originNanos) {
        return new HaltSwitch(trigger, record, originNanos, status -> Runtime.getRuntime().halt(status));
    }

    /** Arms the switch if the trigger file exists (its content names the point); true once armed. */
    public boolean pollTrigger() throws IOException {
        if (armed == null) {
            try {
                String text = Files.readString(trigger, StandardCharsets.UTF_8).trim();
                if (!text.isEmpty()) {
                    armed = HaltPoint.parse(text);
                }
            } catch (NoSuchFileException e) {
                return false;
            }
        }
        return armed != null;
    }

    @Override
    public void afterTmDecision(long txId, long commitTs) {
        maybeHalt(HaltPoint.AFTER_TM_DECISION, txId, commitTs);
    }

    @Override
    public void afterCommitPoint(long txId, long commitTs) {
        maybeHalt(HaltPoint.AFTER_COMMIT_POINT, txId, commitTs);
    }

    private void maybeHalt(HaltPoint point, long txId, long commitTs) {
        if (armed != point) {
            return;
        }
        Invocation current = CurrentOperation.get();
        if (current == null || current.value().stream().noneMatch(HaltSwitch::writes)) {
            return;
        }
        if (!fired.compareAndSet(false, true)) {
            return;
        }
        long now = System.nanoTime() - originNanos;
        try {
            new HaltRecord(point, txId, commitTs, now, current.f(), current.value()).write(record);
        } catch (IOException | RuntimeException e) {
            // Halting anyway is right: the driver sees the exit without a record and reports the fault as unchecked.
            System.err.println("halt switch: could not write " + record + ": " + e);
        }
        halter.halt(HALT_STATUS);
    }

    /** Micro-ops that write: list-append appends and bank transfers. */
    static boolean writes(Mop m) {
        return m.isAppend() || io.phoenixtxn.history.Names.TRANSFER.equals(m.f());
    }
}
