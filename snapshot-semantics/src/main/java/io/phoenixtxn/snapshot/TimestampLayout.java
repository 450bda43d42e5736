package io.phoenixtxn.snapshot;

/**
 * The layout of every timestamp phoenix-txn issues or writes. One long carries four things at once:
 *
 * <pre>
 *   ts = wallClockMillis * 1_000_000  +  slotIndex * 950  +  offset
 *        (Phoenix contract)              (TM allocation)     (0: the TM timestamp itself,
 *                                                              1..49: checkpoint write pointers,
 *                                                              50..949: fast-path versions of a region server)
 * </pre>
 *
 * <ul>
 *   <li>Phoenix divides transaction ids by 1,000,000 to get milliseconds ({@code TransactionUtil}); the high part
 *       is therefore wall-clock milliseconds. Under load the oracle may run ahead of the wall clock (a hybrid
 *       logical clock); it never runs backwards.</li>
 *   <li>The TM hands out only slot starts. A transaction id is always a slot start, which is a multiple of 50, so
 *       {@link #txIdOf(long)} ({@code v - v % 50}) recovers the id from any checkpoint version exactly as Apache Omid
 *       1.1 does ({@code removeCheckpointBits}); commit-table keys stay Omid-compatible.</li>
 *   <li>950 = 19 x 50 is an odd multiple of 50, so consecutive slot starts cycle through all eight even values of
 *       {@code ts & 0x0F}: the commit table's bucket byte spreads like Omid's (a multiple of 1000 would use 2 buckets).</li>
 *   <li>Offsets 50..949 are the fast-path sequence numbers that a region server's local version clock issues
 *       between two global timestamps (VLDB'18 sec. 4.2); they never collide with a transaction id or checkpoint.</li>
 *   <li>1052 slots fit in a millisecond (the last one ends at offset 999,399), about 1.05 million TM timestamps per
 *       second before the oracle has to borrow the next millisecond.</li>
 * </ul>
 */
public final class TimestampLayout {
    /** Phoenix's {@code TransactionUtil.MAX_TRANSACTIONS_PER_MILLISECOND}. */
    public static final long UNITS_PER_MILLI = 1_000_000L;
    /** Apache Omid's {@code MAX_CHECKPOINTS_PER_TXN}: the grid transaction ids sit on. */
    public static final long CHECKPOINT_GRID = 50L;
    /** Checkpoints a transaction may take; the 50th would leave the grid cell of its id. */
    public static final int MAX_CHECKPOINTS = 49;
    /** Width of one TM allocation. */
    public static final long SLOT_WIDTH = 19 * CHECKPOINT_GRID;
    /** Slots per millisecond such that the last slot still ends inside the millisecond. */
    public static final long SLOTS_PER_MILLI = (UNITS_PER_MILLI - SLOT_WIDTH) / SLOT_WIDTH + 1;
    /** First and last offset inside a slot reserved for fast-path versions. */
    public static final long FAST_PATH_FIRST_OFFSET = CHECKPOINT_GRID;
    public static final long FAST_PATH_LAST_OFFSET = SLOT_WIDTH - 1;

    private TimestampLayout() {
    }

    public static long millisOf(long ts) {
        return ts / UNITS_PER_MILLI;
    }

    /** The first slot start of a wall-clock millisecond. */
    public static long firstSlotOfMillis(long millis) {
        return Math.multiplyExact(millis, UNITS_PER_MILLI);
    }

    public static long slotIndexOf(long ts) {
        return (ts % UNITS_PER_MILLI) / SLOT_WIDTH;
    }

    public static long offsetInSlot(long ts) {
        return (ts % UNITS_PER_MILLI) % SLOT_WIDTH;
    }

    public static long slotStartOf(long ts) {
        return ts - offsetInSlot(ts);
    }

    public static boolean isSlotStart(long ts) {
        return ts >= 0 && offsetInSlot(ts) == 0 && slotIndexOf(ts) < SLOTS_PER_MILLI;
    }

    /** The slot start that follows the slot holding {@code ts}. */
    public static long nextSlotStart(long ts) {
        long index = slotIndexOf(ts);
        if (index + 1 < SLOTS_PER_MILLI) {
            return slotStartOf(ts) + SLOT_WIDTH;
        }
        return firstSlotOfMillis(millisOf(ts) + 1);
    }

    /** The transaction id (start timestamp) that wrote a tentative version; Omid's removeCheckpointBits. */
    public static long txIdOf(long version) {
        return version - version % CHECKPOINT_GRID;
    }

    /** True for versions written by a region server's fast path (always written together with their commit). */
    public static boolean isFastPathVersion(long version) {
        return offsetInSlot(version) >= FAST_PATH_FIRST_OFFSET;
    }

    /** Number of checkpoints a write pointer is past its transaction id. */
    public static int checkpointsOf(long writePointer) {
        return (int) (writePointer - txIdOf(writePointer));
    }

    /** Human-readable form for logs and error messages: millis.slot+offset. */
    public static String describe(long ts) {
        return millisOf(ts) + "." + slotIndexOf(ts) + "+" + offsetInSlot(ts);
    }
}
