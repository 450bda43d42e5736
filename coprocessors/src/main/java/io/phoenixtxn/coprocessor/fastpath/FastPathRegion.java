package io.phoenixtxn.coprocessor.fastpath;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.fastpath.FastPathWire;
import io.phoenixtxn.coprocessor.GcHorizon;
import io.phoenixtxn.snapshot.PreTransactionalCells;
import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.OperationWithAttributes;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.util.Pair;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The fast path of one region (VLDB'18 sec. 4, Alg. 4; Lorra draft sec. 5), behind the region observer's hooks:
 *
 * <ul>
 *   <li>transactional reads bump the server's {@link LocalVersionClock} to their start and wait for fast-path writes
 *       in flight below it ({@link #beforeSnapshotRead}; Alg. 4 preGet);</li>
 *   <li>puts of commit cells bump it to their commit timestamp (Alg. 4 preUpdate), and tentative writes are refused
 *       when their row holds a fast-path commit newer than their transaction's start ({@link #beforeBatch}; Alg. 4
 *       prePut, {@link TentativeWriteCheck});</li>
 *   <li>fast-path reads ({@link #serveRead}) and writes ({@link #beforeWrite} admits them before HBase locks the
 *       row, {@link #beforeBatch} writes them with the row locked, {@link #answer}; Alg. 4 putVersion,
 *       {@link FastPathWriter}).</li>
 * </ul>
 * A region opened here bootstraps its clock from the TM in the background ({@link #regionOpened}).
 */
public final class FastPathRegion {
    /** Checks the commit table an operation names against the region server's ({@code CommitTableCheck}). */
    @FunctionalInterface
    public interface CommitTableVerifier {
        void verify(OperationWithAttributes op, String what) throws IOException;
    }

    private final LocalVersionClock clock;
    private final RegionBootstrap bootstrap;
    private final InFlightWrites inFlight;
    private final RowReader rows;
    private final TentativeWriteCheck tentativeWrites;
    private final FastPathWriter writer;
    private final CommitTableVerifier verifier;

    private FastPathRegion(RegionCoprocessorEnvironment env, CommitTable commitTable, TimestampSource timestamps,
                           CommitTableVerifier verifier, FastPathConfig config,
                           PreTransactionalCells preTransactional) {
        this.clock = RegionServerClocks.of(env.getServerName().toString(), timestamps,
                config.slotMaxAgeMs());
        this.bootstrap = new RegionBootstrap(clock, timestamps);
        this.inFlight = new InFlightWrites(config.readWaitMs());
        this.rows = new RowReader(env.getRegion(), commitTable, GcHorizon::current, preTransactional);
        this.tentativeWrites = new TentativeWriteCheck(env.getRegion(), rows, bootstrap, clock);
        this.writer = new FastPathWriter(env.getRegion(), rows, bootstrap, clock, inFlight, tentativeWrites,
                config.bootstrapWaitMs(), () -> GcHorizon.current().gc());
        this.verifier = verifier;
    }

    /**
     * @param tm the TM the region server asks (null while it knows none): the source of bootstrap timestamps and of the
     *           clock's reserved slots
     * @param preTransactional the table's "committed below" rule (a table made transactional after it was written)
     */
    public static FastPathRegion start(RegionCoprocessorEnvironment env, CommitTable commitTable,
                                       Supplier<TransactionManager> tm, CommitTableVerifier verifier,
                                       PreTransactionalCells preTransactional) {
        return new FastPathRegion(env, commitTable, timestampsOf(tm), verifier,
                FastPathConfig.from(env.getConfiguration()::get), preTransactional);
    }

    private static TimestampSource timestampsOf(Supplier<TransactionManager> tm) {
        return () -> {
            TransactionManager manager = tm.get();
            return manager == null ? CompletableFuture.failedFuture(new TmException("this region server knows no TM"
                    + " yet (it connects in the background)")) : manager.timestampAsync();
        };
    }

    /** postOpen: starts the bootstrap of the clock for this region. */
    public void regionOpened() {
        bootstrap.start();
    }

    /**
     * A transactional get ({@code row}) or scan (null) is about to read at {@code snapshot}: fast-path writes from now
     * on get versions above its start, and those that drew one below it are readable before it reads.
     */
    public void beforeSnapshotRead(Snapshot snapshot, byte[] row) throws IOException {
        clock.bump(snapshot.txId());
        inFlight.awaitBelow(snapshot.txId(), row);
    }

    /** A fast-path get (brc, br): answered here, and the default get bypassed. False for any other get. */
    public boolean serveRead(ObserverContext<RegionCoprocessorEnvironment> ctx, Get get, List<Cell> result)
            throws IOException {
        if (!FastPathWire.isRead(get)) {
            return false;
        }
        verifier.verify(get, "fast-path get");
        RowState state = rows.read(get.getRow());
        result.addAll(state.visibleCells(get.getFamilyMap()));
        result.add(FastPathWire.outcomeCell(get.getRow(), false, state.version()));
        ctx.bypass();
        return true;
    }

    /**
     * preBatchMutate, the rows locked: fast-path writes (their carriers' cells join the batch here, one WAL edit),
     * post-commit bumps, and the check of tentative writes against fast-path commits.
     */
    public void beforeBatch(MiniBatchOperationInProgress<Mutation> batch) throws IOException {
        for (int i = 0; i < batch.size(); i++) {
            if (batch.getOperation(i) instanceof Increment carrier && FastPathWire.requestOf(carrier) != null
                    && batch.getOperationStatus(i).getOperationStatusCode()
                    == HConstants.OperationStatusCode.NOT_RUN) {
                write(batch, i, carrier);
            }
        }
        tentativeWrites.check(batch);
    }

    /**
     * preIncrement (no lock held yet): admits a carrier, or refuses it; other increments pass. May wait. An admitted
     * carrier loses its placeholder column: HBase then reads nothing for it under the row lock (an increment reads the
     * current values of its columns), and the write's cells join the batch in {@link #beforeBatch}.
     */
    public void beforeWrite(Increment increment) throws IOException {
        if (FastPathWire.requestOf(increment) != null) {
            verifier.verify(increment, "fast-path write");
            writer.admit(increment);
            increment.getFamilyCellMap().clear();
        }
    }

    private void write(MiniBatchOperationInProgress<Mutation> batch, int index, Increment carrier)
            throws IOException {
        if (!writer.admitted(carrier)) { // verified in preIncrement when admitted there
            verifier.verify(carrier, "fast-path write");
        }
        List<Cell> cells = writer.write(carrier);
        if (!cells.isEmpty()) {
            Put written = new Put(carrier.getRow());
            for (Cell cell : cells) {
                written.add(cell);
            }
            batch.addOperationsFromCP(index, new Mutation[] {written}); // same row (its lock held), same WAL edit
        }
    }

    /**
     * postIncrementBeforeWAL: cells pass unchanged. A carrier has no column left when HBase gets here (preIncrement
     * removed it), so this hook never sees one; the write happens in {@link #beforeBatch}.
     */
    public List<Pair<Cell, Cell>> write(Mutation mutation, List<Pair<Cell, Cell>> cells) {
        return cells;
    }

    /** postIncrement: the answer of a fast-path write; other increments keep theirs. */
    public Result answer(Increment increment, Result result) throws IOException {
        return FastPathWire.requestOf(increment) == null ? result : writer.answer(increment);
    }

    /** postBatchMutateIndispensably: a fast-path write of this handler is readable now, or failed. */
    public void afterBatch() {
        writer.finished();
    }

    /** The clock of this region's server (tests, monitoring). */
    public LocalVersionClock clock() {
        return clock;
    }
}
