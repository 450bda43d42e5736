package io.phoenixtxn.chaos;

import io.phoenixtxn.chaos.client.HaltPoint;
import io.phoenixtxn.chaos.client.HaltRecord;

import java.nio.file.Path;
import java.util.List;

/**
 * One client JVM of a slot: the slot's workload on tables of its own ({@code CHAOS_C<slot>_G<generation>}), its
 * history file and the files the driver and the JVM talk through. A slot gets a new generation, with fresh tables,
 * when its JVM was killed or its setup failed, so every history is one workload on its own tables, checked alone.
 * Mutable state is guarded by the {@link ClientFleet} that owns it.
 */
final class ClientGeneration {
    enum State {
        /** Started; the workload's setup has not committed yet. */
        STARTING,
        /** Past its setup: its history holds the setup and its operations. */
        RUNNING,
        /** Halted by its halt switch, as the driver asked. */
        HALTED,
        /** Exited: at the end of the run, or unexpectedly (a problem). */
        EXITED,
        /** Its setup failed (tables not created): nothing to check; the slot got a new generation. */
        SETUP_FAILED
    }

    final int slot;
    final int generation;
    final String workload;
    final Path dir;
    Process process;
    long startedAt;
    State state = State.STARTING;
    long readyAt = -1;
    HistoryTail tail;
    HaltPoint armed;
    HaltRecord halted;
    Process finalRead;
    Integer exitStatus;
    Integer finalReadStatus;

    ClientGeneration(int slot, int generation, String workload, Path runDir) {
        this.slot = slot;
        this.generation = generation;
        this.workload = workload;
        this.dir = runDir.resolve("clients").resolve(id());
        this.tail = new HistoryTail(history());
    }

    /** {@code c<slot>-g<generation>}: the name in the report and the directory. */
    String id() {
        return "c" + slot + "-g" + generation;
    }

    /** The workload's main table (bank: the accounts; its ledger is this name + {@code _LEDGER}). */
    String table() {
        return "CHAOS_C" + slot + "_G" + generation;
    }

    List<String> tables() {
        return workload.equals("bank") ? List.of(table(), table() + "_LEDGER") : List.of(table());
    }

    /** The primary-key column and the value column of the main table (what the index fault indexes). */
    String keyColumn() {
        return workload.equals("bank") ? "ID" : "K";
    }

    String valueColumn() {
        return workload.equals("bank") ? "BAL" : "V";
    }

    Path history() {
        return dir.resolve("history.jsonl");
    }

    Path readyFile() {
        return dir.resolve("ready");
    }

    Path haltTrigger() {
        return dir.resolve("halt-trigger");
    }

    Path haltRecord() {
        return dir.resolve("halt-record.properties");
    }

    /** The TM decisions the JVM received ({@link io.phoenixtxn.chaos.client.DecisionLog}). */
    Path decisionLog() {
        return dir.resolve("decisions.log");
    }

    Path console() {
        return dir.resolve("client.out");
    }

    Path log() {
        return dir.resolve("client.log");
    }

    Path finalReadConsole() {
        return dir.resolve("final-read.out");
    }

    /** Whether its history has operations to check (it got past its setup). */
    boolean recorded() {
        return readyAt >= 0;
    }

    @Override
    public String toString() {
        return id() + " (" + workload + " on " + table() + ", " + state + ")";
    }
}
