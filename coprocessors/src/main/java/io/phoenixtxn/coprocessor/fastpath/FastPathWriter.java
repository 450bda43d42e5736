package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.client.OnDiskLayout;
import io.phoenixtxn.client.fastpath.ColumnValue;
import io.phoenixtxn.client.fastpath.FastPathAbortedException;
import io.phoenixtxn.client.fastpath.FastPathInDoubtException;
import io.phoenixtxn.client.fastpath.FastPathRequest;
import io.phoenixtxn.client.fastpath.FastPathSwitch;
import io.phoenixtxn.client.fastpath.FastPathWire;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * putVersion (VLDB'18 Alg. 4 lines 11-18; Lorra draft validateAndMutate and brwc), run in preBatchMutate with the
 * row locked exclusively by its carrier increment (whose placeholder column preIncrement removed, so HBase reads nothing
 * for it), so that reading the row, numbering the write and writing it are one atomic step:
 * <ol>
 *   <li>refused when the table does not have the fast path enabled ({@link FastPathSwitch}), or the region has no bootstrapped
 *       clock (no TM answered);</li>
 *   <li>aborted when the row has a version whose writer may still commit, or a version committed above the bound;</li>
 *   <li>brwc: the function computes the new values from the row's latest committed ones (it may write nothing);</li>
 *   <li>the clock is bumped to the row's newest commit timestamp and to the GC horizon (below it compaction may have
 *       removed every trace of a commit) and draws the version v: data cells and their commit
 *       cells, all at v, join the carrier's batch (one WAL edit, one MVCC write);</li>
 *   <li>the write is registered in flight from before the draw until it is readable ({@link InFlightWrites}).</li>
 * </ol>
 * The answer (the written cells, or the current ones, and the outcome) is kept for postIncrement on the handler's thread;
 * a resent carrier HBase answers from its nonce gets {@link FastPathInDoubtException}.
 */
final class FastPathWriter {
    private record Pending(Increment carrier, InFlightWrites.Entry entry, Result answer) {
    }

    /** A carrier admitted in preIncrement, with its request decoded there (not again under the row lock). */
    private record Admitted(Increment carrier, FastPathRequest request) {
    }

    private final Region region;
    private final RowReader rows;
    private final RegionBootstrap bootstrap;
    private final LocalVersionClock clock;
    private final InFlightWrites inFlight;
    private final TentativeWriteCheck tentativeWrites;
    private final long bootstrapWaitMs;
    private final LongSupplier gcHorizon;
    private final ThreadLocal<Pending> pending = new ThreadLocal<>();
    private final ThreadLocal<Admitted> admitted = new ThreadLocal<>();
    /** The descriptor last found to have the fast path on (a region's descriptor changes only by a reopen). */
    private volatile TableDescriptor enabledDescriptor;

    /** @param gcHorizon the region server's GC horizon (a timestamp inside a slot the TM issued); -1 while unknown */
    FastPathWriter(Region region, RowReader rows, RegionBootstrap bootstrap, LocalVersionClock clock,
                   InFlightWrites inFlight, TentativeWriteCheck tentativeWrites, long bootstrapWaitMs,
                   LongSupplier gcHorizon) {
        this.gcHorizon = gcHorizon;
        this.region = region;
        this.rows = rows;
        this.bootstrap = bootstrap;
        this.clock = clock;
        this.inFlight = inFlight;
        this.tentativeWrites = tentativeWrites;
        this.bootstrapWaitMs = bootstrapWaitMs;
    }

    /**
     * preIncrement, before HBase takes the row lock and the region's updates lock: refuses the carrier when the table
     * has the fast path off, and waits (up to the bootstrap wait) for the region's clock bootstrap here, where waiting
     * holds back no other writer of the row or region.
     */
    void admit(Increment carrier) throws IOException {
        admitted.remove();
        FastPathRequest request = FastPathRequest.decode(FastPathWire.requestOf(carrier));
        checkSwitch();
        if (!bootstrap.await(bootstrapWaitMs)) {
            throw FastPathAbortedException.of(FastPathAbortedException.Reason.SLOT_UNAVAILABLE, "region "
                    + region.getRegionInfo().getEncodedName() + " of " + table() + " opened on this server has no"
                    + " fresh TM timestamp for its version clock yet (no TM answered within "
                    + FastPathConfig.BOOTSTRAP_WAIT_MS + "=" + bootstrapWaitMs + " ms); retry as a regular transaction");
        }
        clock.freshen(bootstrapWaitMs); // a slot that aged past its maximum age is left for a fresh one here
        admitted.set(new Admitted(carrier, request));
    }

    /** Whether this handler admitted {@code carrier} in preIncrement (its commit table was verified there). */
    boolean admitted(Increment carrier) {
        Admitted a = admitted.get();
        return a != null && a.carrier() == carrier;
    }

    /** The cells the carrier writes: the write's data and commit cells, or none. Never waits. */
    List<Cell> write(Increment carrier) throws IOException {
        Admitted a = admitted.get();
        admitted.remove();
        finished();
        byte[] row = carrier.getRow();
        FastPathRequest request = a != null && a.carrier() == carrier ? a.request()
                : FastPathRequest.decode(FastPathWire.requestOf(carrier));
        checkSwitch();
        if (!bootstrap.await(0)) { // admitted in preIncrement, which waited for it
            throw FastPathAbortedException.of(FastPathAbortedException.Reason.SLOT_UNAVAILABLE, "region "
                    + region.getRegionInfo().getEncodedName() + " of " + table() + " has no fresh TM timestamp for"
                    + " its version clock yet; retry as a regular transaction");
        }
        RowState state = rows.readForWrite(row);
        if (!state.pendingWriters().isEmpty()) {
            throw FastPathAbortedException.of(FastPathAbortedException.Reason.TENTATIVE_VERSION, "row "
                    + Bytes.toStringBinary(row) + " of " + table() + " has versions of transactions "
                    + state.pendingWriters() + " that may still commit; retry as a regular transaction");
        }
        if (request.mode() == FastPathRequest.Mode.CONDITIONAL && state.version() > request.bound()) {
            throw FastPathAbortedException.of(FastPathAbortedException.Reason.NEWER_COMMIT, "row "
                    + Bytes.toStringBinary(row) + " of " + table() + " has a version committed at "
                    + state.version() + ", after the version " + request.bound() + " it was read at; read it again");
        }
        List<ColumnValue> columns = request.mode() == FastPathRequest.Mode.FUNCTION
                ? request.function().apply(state::committedValue) : request.columns();
        if (columns == null) {
            pending.set(new Pending(carrier, null, answer(row, state.visibleCells(familyOf(request)), false,
                    state.version())));
            return List.of();
        }
        clock.bump(state.version());
        // Compaction may have dropped a delete committed below the GC horizon whose commit cells were never written
        // (resolved through the commit table), with everything under it: the row then shows no trace of that commit,
        // and a version below it would be serialized before a delete readers already see. The horizon is inside a slot
        // the TM issued (an open start, or just above the last timestamp issued), so the clock may move to it.
        clock.bump(gcHorizon.getAsLong());
        InFlightWrites.Entry entry = inFlight.register(row);
        try {
            long version = clock.next();
            if (version == LocalVersionClock.NONE) {
                throw FastPathAbortedException.of(FastPathAbortedException.Reason.SLOT_UNAVAILABLE, "the version"
                        + " clock of this region server used up its slot and holds no fresh one yet ("
                        + clock + "); retry as a regular transaction");
            }
            entry.drawn(version);
            tentativeWrites.wrote(version);
            FastPathHooks.current().afterVersionDrawn(row, version);
            List<Cell> cells = new ArrayList<>(2 * columns.size());
            List<Cell> written = new ArrayList<>(columns.size());
            byte[] commitValue = OnDiskLayout.encodeCommitTimestamp(version);
            for (ColumnValue column : columns) {
                KeyValue data = new KeyValue(row, column.family(), column.qualifier(), version, column.value());
                cells.add(data);
                cells.add(new KeyValue(row, column.family(), OnDiskLayout.commitQualifier(column.qualifier()),
                        version, commitValue));
                written.add(data);
            }
            written.sort(CellComparator.getInstance());
            pending.set(new Pending(carrier, entry, answer(row, written, true, version)));
            return cells;
        } catch (IOException | RuntimeException e) {
            inFlight.finish(entry);
            throw e;
        }
    }

    /**
     * The answer of a carrier: what {@link #write} kept for it. HBase runs postIncrement but marks a carrier it
     * recognised as resent (its nonce was seen) done before preBatchMutate, which leaves it unwritten: the first
     * attempt's answer is
     * not here, and whether it applied is unknown (a brwc may have been refused, a bwc's version is its own), so the
     * answer is in doubt, never "applied".
     */
    Result answer(Increment carrier) throws IOException {
        Pending p = pending.get();
        if (p != null && p.carrier() == carrier) {
            return p.answer();
        }
        throw FastPathInDoubtException.of("HBase answered a resent fast-path write to row "
                + Bytes.toStringBinary(carrier.getRow()) + " of " + table() + " from its nonce without running it;"
                + " its first attempt's outcome is unknown here");
    }

    /** The write of this handler is readable, or failed: it is no longer in flight. */
    void finished() {
        Pending p = pending.get();
        if (p != null) {
            pending.remove();
            if (p.entry() != null) {
                inFlight.finish(p.entry());
            }
        }
    }

    private void checkSwitch() throws FastPathAbortedException {
        TableDescriptor descriptor = region.getTableDescriptor();
        if (descriptor == enabledDescriptor) {
            return;
        }
        if (FastPathSwitch.isEnabled(descriptor)) {
            enabledDescriptor = descriptor;
        } else {
            throw FastPathAbortedException.of(FastPathAbortedException.Reason.FENCED, "table " + table()
                    + " does not have the fast path enabled (it is opt-in: descriptor attribute "
                    + FastPathSwitch.ATTRIBUTE + "=true, set by FastPathSwitch.enable on a table without indexes;"
                    + " an index build turns it off); write it in a regular transaction, which maintains indexes");
        }
    }

    private static Result answer(byte[] row, List<Cell> cells, boolean applied, long version) {
        List<Cell> all = new ArrayList<>(cells.size() + 1);
        all.addAll(cells);
        all.add(FastPathWire.outcomeCell(row, applied, version));
        return Result.create(all);
    }

    private static TreeMap<byte[], NavigableSet<byte[]>> familyOf(FastPathRequest request) {
        TreeMap<byte[], NavigableSet<byte[]>> families = new TreeMap<>(Bytes.BYTES_COMPARATOR);
        families.put(request.anyFamily(), null);
        return families;
    }

    private String table() {
        return region.getRegionInfo().getTable().getNameAsString();
    }
}
