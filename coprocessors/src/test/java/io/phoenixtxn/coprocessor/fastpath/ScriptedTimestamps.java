package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.snapshot.TimestampLayout;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TM for the version clock's tests: answers with increasing slot starts, at once ({@link #immediate}), or when the
 * test completes the request ({@link #held}), or not at all ({@link #down}); counts the requests.
 */
final class ScriptedTimestamps implements TimestampSource {
    private final AtomicLong last;
    private final AtomicInteger requests = new AtomicInteger();
    private final Deque<CompletableFuture<Long>> heldRequests = new ArrayDeque<>();
    private volatile Mode mode;

    enum Mode { IMMEDIATE, HELD, DOWN }

    private ScriptedTimestamps(long start, Mode mode) {
        this.last = new AtomicLong(start);
        this.mode = mode;
    }

    static ScriptedTimestamps immediate(long after) {
        return new ScriptedTimestamps(after, Mode.IMMEDIATE);
    }

    static ScriptedTimestamps held(long after) {
        return new ScriptedTimestamps(after, Mode.HELD);
    }

    static ScriptedTimestamps down() {
        return new ScriptedTimestamps(0, Mode.DOWN);
    }

    void switchTo(Mode m) {
        mode = m;
    }

    /** The next timestamp this TM would issue (without issuing it). */
    long peek() {
        return TimestampLayout.nextSlotStart(last.get());
    }

    /** A timestamp issued to someone else (a reader's begin): later answers are above it. */
    long issue() {
        return last.updateAndGet(TimestampLayout::nextSlotStart);
    }

    @Override
    public synchronized CompletableFuture<Long> fresh() {
        requests.incrementAndGet();
        switch (mode) {
            case IMMEDIATE:
                return CompletableFuture.completedFuture(issue());
            case HELD:
                CompletableFuture<Long> f = new CompletableFuture<>();
                heldRequests.add(f);
                return f;
            default:
                return CompletableFuture.failedFuture(new IllegalStateException("no TM (test)"));
        }
    }

    /** Answers the oldest held request with a fresh timestamp; false if none is held. */
    boolean answerOne() {
        CompletableFuture<Long> f;
        synchronized (this) {
            f = heldRequests.poll();
        }
        if (f == null) {
            return false;
        }
        f.complete(issue());
        return true;
    }

    int requests() {
        return requests.get();
    }
}
