package io.phoenixtxn.chaos;

import io.phoenixtxn.chaos.client.HaltRecord;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * One injected fault, as the nemesis saw it: when it was injected and healed (run clock), what it hit, which
 * clients it could stall ({@code null}: all of them), how long HBase took to bring the regions of a killed region
 * server back, what was observed (notes) and what went wrong (problems: any fails the run). The unavailability
 * window is computed afterwards from the histories ({@link Unavailability}).
 */
final class FaultRecord {
    final FaultKind kind;
    final boolean mixed;
    long injectedAt = -1;
    long healedAt = -1;
    String target = "";
    /** Ids of the client generations the fault can stall; null: every client (TM, ZooKeeper, commit table). */
    Set<String> affected;
    /** Region-server faults: from the kill until every region it served was open elsewhere (hbase:meta). */
    Long recoveryNanos;
    /** Pause faults: when the paused primary was continued, and the epoch of the primary that took over. */
    long resumedAt = -1;
    Long successorEpoch;
    /** Client kills: the client and what it wrote before halting. */
    String haltedClient;
    HaltRecord halt;
    /** Index faults: the indexed client and the DROP INDEX (run clock), to count its writers' failures. */
    String indexedClient;
    long dropStart = -1;
    long dropEnd = -1;
    private final List<String> notes = Collections.synchronizedList(new ArrayList<>());
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());

    FaultRecord(FaultKind kind, boolean mixed) {
        this.kind = kind;
        this.mixed = mixed;
    }

    void note(String text) {
        notes.add(text);
    }

    void problem(String text) {
        problems.add(text);
    }

    List<String> notes() {
        return List.copyOf(notes);
    }

    List<String> problems() {
        return List.copyOf(problems);
    }

    String label() {
        return kind.reportName() + (mixed ? " (mixed)" : "") + (target.isEmpty() ? "" : " " + target) + " at "
                + RunClock.seconds(injectedAt);
    }
}
