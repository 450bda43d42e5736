package io.phoenixtxn.snapshot;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A transaction id is a TM slot start, never a fast-path version (a defect the unit tests found). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TransactionIdTest {

    /**
     * Snapshot's "Not a transaction id" check only asks for a multiple of 50 ({@code txIdOf(txId) == txId}), so a
     * fast-path version such as slotStart + 100 is accepted as a transaction id (also from SnapshotCodec.decode).
     * Such a snapshot cannot see its own writes: isOwnWrite() treats every one of them as a fast-path version.
     * TimestampLayout documents that a transaction id is always a slot start; the check should be isSlotStart.
     */
    @Test
    void aFastPathVersionIsNotATransactionId() {
        long fastPath = VisibilityTest.slot(3) + 100;
        assertThrows(IllegalArgumentException.class, () -> Snapshot.begin(fastPath));
    }
}
