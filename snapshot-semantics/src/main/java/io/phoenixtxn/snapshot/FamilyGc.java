package io.phoenixtxn.snapshot;

import java.util.Arrays;

/**
 * What compaction-time garbage collection keeps of one row's family, given the GC horizon: the oldest snapshot any
 * live transaction may still read (every live reader's start is at or above it, and no transaction that started
 * below it can commit any more). The versions of every column are added with what their writer's status is, then
 * {@link #decide()} marks each kept or dropped. Pure: the region-server scanner gathers the cells and applies the
 * verdicts.
 *
 * <p>Why it is safe, for every live reader R (start >= horizon): a version committed below the horizon is visible
 * to R. Per column, the highest such version N (readers pick the highest visible version) is what R reads unless a
 * newer version is visible to it, so versions below N are never read by anyone: dropped. If N is a tombstone, has
 * expired (TTL) or is masked by the newest family delete committed below the horizon (visible to every R, newer
 * than any older one), R reads "no value" there, and dropping N together with everything below it reads the same;
 * such a family delete masks nothing else that is kept (every kept version is newer than it), so it goes too, and
 * older family deletes below the horizon are superseded by it. Aborted versions are never read. Versions committed at or above the
 * horizon and undecided versions (their writers are live) are kept untouched, and a family with any version whose
 * status could not be established is kept whole.
 *
 * <p>Flushes and minor compactions see only some of a store's files: older files may hold versions that a tombstone,
 * an expired N or a family delete must keep masking. So only a major compaction drops those markers themselves;
 * the others drop what the markers mask within their own input and keep the markers.
 */
public final class FamilyGc {
    /** What GC knows of a version's writer after resolving it (commit cell, commit table, force-abort). */
    public enum Status {
        /** Committed at the given commit timestamp. */
        COMMITTED,
        /** Aborted or invalidated: never visible to anyone. */
        ABORTED,
        /** Undecided: its writer is live (only possible at or above the horizon). */
        PENDING,
        /** Could not be resolved (commit table unreachable): the whole family is kept. */
        UNKNOWN
    }

    private final long horizon;
    private final long expiredBelow;
    private final boolean major;
    private final PreTransactionalCells preTransactional;

    private int size;
    private int[] column = new int[16];
    private long[] version = new long[16];
    private long[] commitTs = new long[16];
    private Status[] status = new Status[16];
    private boolean[] tombstone = new boolean[16];
    private boolean[] familyDelete = new boolean[16];
    private boolean[] keep = new boolean[16];
    /** Per column id: index of its highest version committed below the horizon, or -1 (scratch). */
    private int[] highest = new int[16];

    /**
     * @param horizon      the GC horizon
     * @param expiredBelow commit timestamps below this have outlived the family's TTL (at or below the horizon);
     *                     {@link Long#MIN_VALUE} without a TTL
     * @param major        a major compaction (sees every file of the store)
     */
    public FamilyGc(long horizon, long expiredBelow, boolean major) {
        this(horizon, expiredBelow, major, PreTransactionalCells.NONE);
    }

    /**
     * @param preTransactional the table's "committed below" rule: a TTL is measured on a pre-switch cell's
     *                         millisecond ({@link PreTransactionalCells#ttlTimeOf})
     */
    public FamilyGc(long horizon, long expiredBelow, boolean major, PreTransactionalCells preTransactional) {
        if (expiredBelow > horizon) {
            throw new IllegalArgumentException("TTL bound " + expiredBelow + " above the horizon " + horizon);
        }
        this.horizon = horizon;
        this.expiredBelow = expiredBelow;
        this.major = major;
        this.preTransactional = preTransactional;
    }

    /** Starts a new row-family group; the arrays are reused. */
    public void reset() {
        size = 0;
    }

    /**
     * Adds a version and returns its index.
     *
     * @param columnId      0, 1, 2 ... : one dense id per qualifier of the group (ignored for family deletes)
     * @param isFamilyDelete a family-delete marker (row delete); {@code isTombstone} is then true as well
     * @param isTombstone   a column delete (empty value)
     * @param commit        the commit timestamp for {@link Status#COMMITTED}, else ignored
     */
    public int add(int columnId, long cellVersion, Status writer, long commit, boolean isTombstone,
                   boolean isFamilyDelete) {
        if (columnId < 0) {
            throw new IllegalArgumentException("column ids are dense and non-negative: " + columnId);
        }
        if (size == version.length) {
            grow();
        }
        int i = size++;
        column[i] = columnId;
        version[i] = cellVersion;
        status[i] = writer;
        commitTs[i] = commit;
        tombstone[i] = isTombstone || isFamilyDelete;
        familyDelete[i] = isFamilyDelete;
        keep[i] = true;
        return i;
    }

    public int size() {
        return size;
    }

    /** Marks every added version kept or dropped (see the class comment). */
    public void decide() {
        Arrays.fill(keep, 0, size, true);
        for (int i = 0; i < size; i++) {
            if (status[i] == Status.UNKNOWN || (status[i] == Status.PENDING && version[i] < horizon)) {
                return; // cannot reason about this family: keep it whole
            }
        }
        for (int i = 0; i < size; i++) {
            if (status[i] == Status.ABORTED) {
                keep[i] = false;
            }
        }
        int familyDeleteInForce = newestSettledFamilyDelete();
        dropShadowedVersions(familyDeleteInForce);
        for (int i = 0; i < size; i++) {
            // An older settled family delete is superseded by the one in force (visible to every live reader,
            // masking a superset); the one in force masks nothing a major compaction keeps.
            if (familyDelete[i] && settled(i) && (i != familyDeleteInForce || major)) {
                keep[i] = false;
            }
        }
    }

    public boolean keep(int index) {
        return keep[index];
    }

    /** True for a version whose writer committed below the horizon: visible to every live reader. */
    private boolean settled(int i) {
        return keep[i] && status[i] == Status.COMMITTED && commitTs[i] < horizon;
    }

    private int newestSettledFamilyDelete() {
        int newest = -1;
        for (int i = 0; i < size; i++) {
            if (familyDelete[i] && settled(i) && (newest < 0 || orderAfter(i, newest))) {
                newest = i;
            }
        }
        return newest;
    }

    /**
     * Per column, the highest version committed below the horizon (N) is what every live reader reads unless it
     * sees a newer one; the reader never looks below N. So everything below N goes, and N itself goes in a major
     * compaction when it reads as "no value": a tombstone, expired, or masked by the family delete in force (the
     * reader checks the version it picked against the newest family delete it sees, exactly as here).
     */
    private void dropShadowedVersions(int familyDeleteInForce) {
        int columns = 0;
        for (int i = 0; i < size; i++) {
            columns = Math.max(columns, column[i] + 1);
        }
        if (highest.length < columns) {
            highest = new int[Math.max(columns, highest.length * 2)];
        }
        Arrays.fill(highest, 0, columns, -1);
        for (int i = 0; i < size; i++) {
            if (!familyDelete[i] && settled(i)) {
                int h = highest[column[i]];
                if (h < 0 || version[i] > version[h]) {
                    highest[column[i]] = i;
                }
            }
        }
        for (int i = 0; i < size; i++) {
            int h = familyDelete[i] ? -1 : highest[column[i]];
            if (h >= 0 && version[i] < version[h]) {
                keep[i] = false;
            }
        }
        if (!major) {
            return;
        }
        for (int c = 0; c < columns; c++) {
            int n = highest[c];
            if (n >= 0 && (tombstone[n] || preTransactional.ttlTimeOf(version[n], commitTs[n]) < expiredBelow
                    || (familyDeleteInForce >= 0 && masks(familyDeleteInForce, n)))) {
                keep[n] = false;
            }
        }
    }

    /** Does the family delete {@code d} hide the committed cell {@code c}? (Visibility.isMaskedByFamilyDelete) */
    private boolean masks(int d, int c) {
        return commitTs[c] < commitTs[d] || (commitTs[c] == commitTs[d] && version[c] <= version[d]);
    }

    private boolean orderAfter(int a, int b) {
        return commitTs[a] > commitTs[b] || (commitTs[a] == commitTs[b] && version[a] > version[b]);
    }

    private void grow() {
        int n = version.length * 2;
        column = Arrays.copyOf(column, n);
        version = Arrays.copyOf(version, n);
        commitTs = Arrays.copyOf(commitTs, n);
        status = Arrays.copyOf(status, n);
        tombstone = Arrays.copyOf(tombstone, n);
        familyDelete = Arrays.copyOf(familyDelete, n);
        keep = Arrays.copyOf(keep, n);
    }
}
