package io.phoenixtxn.coprocessor.fastpath;

import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A reader waits for exactly the fast-path writes in flight that may belong to its snapshot. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InFlightWritesTest {
    private static final byte[] X = Bytes.toBytes("x");
    private static final byte[] Y = Bytes.toBytes("y");
    private static final long READER = 1_000;

    @Test
    void noWriteInFlightNoWait() throws Exception {
        new InFlightWrites(10).awaitBelow(READER, X);
    }

    @Test
    void aWriteDrawnAboveTheReaderOrOnAnotherRowIsNotWaitedFor() throws Exception {
        InFlightWrites writes = new InFlightWrites(60_000);
        writes.register(X).drawn(READER + 1);
        writes.register(Y).drawn(READER - 1);
        writes.awaitBelow(READER, X); // returns at once: the first is above, the second another row
    }

    @Test
    void aWriteBelowTheReaderOrNotYetDrawnIsWaitedForUntilItFinishes() throws Exception {
        for (boolean drawn : new boolean[] {true, false}) {
            InFlightWrites writes = new InFlightWrites(60_000);
            InFlightWrites.Entry write = writes.register(X);
            if (drawn) {
                write.drawn(READER - 1);
            }
            CompletableFuture<Void> read = CompletableFuture.runAsync(() -> {
                try {
                    writes.awaitBelow(READER, null); // a scan: any row
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertFalse(read.isDone());
            writes.finish(write);
            read.get(10, TimeUnit.SECONDS);
            assertTrue(writes.size() == 0);
        }
    }

    @Test
    void aWriteThatNeverFinishesFailsTheReadInsteadOfLettingItMissTheWrite() {
        InFlightWrites writes = new InFlightWrites(50);
        writes.register(X).drawn(READER - 1);
        IOException e = assertThrows(IOException.class, () -> writes.awaitBelow(READER, X));
        assertTrue(e.getMessage().contains("may belong to its snapshot"), e.getMessage());
    }
}
