package io.phoenixtxn.history.workload;

import io.phoenixtxn.history.History;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.Op;
import io.phoenixtxn.history.OpType;
import io.phoenixtxn.history.check.Checker;
import io.phoenixtxn.history.check.CheckerOptions;
import io.phoenixtxn.history.check.ListAppendChecker;
import io.phoenixtxn.history.record.Recorder;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How the runner records outcomes, with a scripted workload on a stand-in connection: errors before the commit of
 * writes fail; 523 from that commit fails; anything else from it is unknown and retires the process and its
 * connection; refusals fail; setup and final read are recorded on the control process.
 */
class WorkloadRunnerTest {
    private final List<String> connectionCalls = new ArrayList<>();
    private final AtomicInteger opened = new AtomicInteger();

    @Test
    void outcomesAreRecordedByWhereAndHowEachOperationEnded() throws Exception {
        ScriptedWorkload workload = new ScriptedWorkload(List.of(
                Step.OK,
                Step.ERROR_BEFORE_COMMIT,            // a statement failed: nothing committed
                Step.CONFLICT_AT_COMMIT,             // 523: aborted
                Step.NOT_APPLIED,                    // the workload refused: wrote nothing
                Step.UNKNOWN_AT_COMMIT,              // 1077 outcome unknown
                Step.RUNTIME_AT_COMMIT,              // anything else thrown by the commit: unknown
                Step.OK));
        Recorder recorder = new Recorder();
        WorkloadRunner.Config config = new WorkloadRunner.Config(List.of(this::connection), 1, null, 7, 1,
                Duration.ofSeconds(5), Duration.ofSeconds(5));
        History history = new WorkloadRunner(workload, config, recorder).run();

        List<Op> ops = history.ops();
        assertEquals(Names.SETUP, ops.get(0).f());
        assertEquals(WorkloadRunner.CONTROL_PROCESS, ops.get(0).process());
        List<Op> client = ops.subList(1, 8);
        assertEquals(List.of(OpType.OK, OpType.FAIL, OpType.FAIL, OpType.FAIL, OpType.INFO, OpType.INFO, OpType.OK),
                client.stream().map(Op::type).toList());
        assertEquals(List.of(0, 0, 0, 0, 0, 1, 2), client.stream().map(Op::process).toList(),
                "a process that saw an unknown outcome is retired");
        assertTrue(client.get(2).error().startsWith("SQL 523"), client.get(2).error());
        assertTrue(client.get(4).error().startsWith("SQL 1077"), client.get(4).error());
        Op end = ops.get(8);
        assertEquals(Names.FINAL_READ, end.f());
        assertEquals(OpType.OK, end.type());
        assertEquals(5, opened.get(), "one connection for the setup, one per process (0, 1, 2), one for the final"
                + " read: " + connectionCalls);
        assertEquals(5, connectionCalls.stream().filter("close"::equals).count(),
                "every connection is closed, those of retired processes at once: " + connectionCalls);
        assertEquals(3, connectionCalls.stream().filter("rollback"::equals).count(),
                "each certain failure is rolled back: " + connectionCalls);
    }

    @Test
    void aFailingFinalReadIsRetriedAndEachAttemptRecorded() throws Exception {
        ScriptedWorkload workload = new ScriptedWorkload(List.of(Step.OK));
        workload.finalReadFailures.set(2);
        Recorder recorder = new Recorder();
        WorkloadRunner.Config config = new WorkloadRunner.Config(List.of(this::connection), 1, null, 1, 1,
                Duration.ofSeconds(30), Duration.ofSeconds(5));
        History history = new WorkloadRunner(workload, config, recorder).run();
        List<OpType> finals = history.ops().stream().filter(op -> Names.FINAL_READ.equals(op.f())).map(Op::type)
                .toList();
        assertEquals(List.of(OpType.FAIL, OpType.FAIL, OpType.OK), finals);
    }

    @Test
    void aThreadPausesAfterAFailureThatIsNoConflictSoAnUnavailableSystemIsNotHammered() throws Exception {
        ScriptedWorkload workload = new ScriptedWorkload(List.of(Step.ERROR_BEFORE_COMMIT, Step.ERROR_BEFORE_COMMIT,
                Step.ERROR_BEFORE_COMMIT, Step.OK));
        WorkloadRunner.Config config = new WorkloadRunner.Config(List.of(this::connection), 1, null, 4, 1,
                Duration.ofSeconds(5), Duration.ofSeconds(5));
        History history = new WorkloadRunner(workload, config, new Recorder()).run();
        List<Op> client = history.ops().subList(1, 5);
        for (int i = 0; i < 3; i++) {
            long gapNanos = client.get(i + 1).invokeTime() - client.get(i).completeTime();
            assertTrue(gapNanos >= WorkloadRunner.UNAVAILABLE_BACKOFF_MS * 1_000_000,
                    "operation " + (i + 1) + " began " + gapNanos + " ns after a failure");
        }
    }

    @Test
    void aRequestedStopEndsTheClientsEarlyAndTheFinalReadStillRuns() throws Exception {
        List<Step> many = new ArrayList<>(java.util.Collections.nCopies(1_000_000, Step.OK));
        ScriptedWorkload workload = new ScriptedWorkload(many);
        Recorder recorder = new Recorder();
        WorkloadRunner.Config config = new WorkloadRunner.Config(List.of(this::connection), 2, Duration.ofHours(1), 0,
                1, Duration.ofSeconds(30), Duration.ofSeconds(5));
        WorkloadRunner runner = new WorkloadRunner(workload, config, recorder);
        java.util.concurrent.CompletableFuture<History> run = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return runner.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(recorder.awaitOkCount(Names.TXN, 5, Duration.ofSeconds(30)), "the clients run");
        runner.requestStop();
        History history = run.get(30, java.util.concurrent.TimeUnit.SECONDS);
        Op last = history.ops().get(history.ops().size() - 1);
        assertEquals(Names.FINAL_READ, last.f());
        assertEquals(OpType.OK, last.type());
        assertTrue(history.ops().size() < 1_000_000, "stopped long before the hour: " + history.ops().size());
    }

    @Test
    void outcomeClassification() {
        SQLException conflict = new SQLException("conflict", "42900", 523);
        SQLException unknown = new SQLException("outcome of transaction 5 is unknown", "XCL77", 1077);
        assertEquals(OpType.FAIL, Outcomes.classify(unknown, false), "nothing was being committed");
        assertEquals(OpType.FAIL, Outcomes.classify(conflict, true));
        assertEquals(OpType.FAIL, Outcomes.classify(new SQLException("x", "42900"), true), "SQLState alone");
        assertEquals(OpType.INFO, Outcomes.classify(unknown, true));
        assertEquals(OpType.INFO, Outcomes.classify(new IllegalStateException("closed"), true));
    }

    private Connection connection() {
        opened.incrementAndGet();
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    synchronized (connectionCalls) {
                        connectionCalls.add(method.getName());
                    }
                    return switch (method.getName()) {
                        case "isClosed", "getAutoCommit" -> false;
                        case "toString" -> "stand-in connection";
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> null;
                    };
                });
    }

    private enum Step { OK, ERROR_BEFORE_COMMIT, CONFLICT_AT_COMMIT, NOT_APPLIED, UNKNOWN_AT_COMMIT, RUNTIME_AT_COMMIT }

    /** Appends to key 0; how each operation ends is scripted. */
    private static final class ScriptedWorkload implements Workload {
        private final ConcurrentLinkedQueue<Step> steps;
        private final AtomicInteger element = new AtomicInteger();
        final AtomicInteger finalReadFailures = new AtomicInteger();

        ScriptedWorkload(List<Step> steps) {
            this.steps = new ConcurrentLinkedQueue<>(steps);
        }

        @Override
        public String name() {
            return "scripted";
        }

        @Override
        public List<Mop> setUp(Connection connection) {
            return List.of(new Mop(Names.WRITE, 0, 0L));
        }

        @Override
        public Invocation next(Random random) {
            return new Invocation(Names.TXN, List.of(Mop.append(0, element.incrementAndGet())));
        }

        @Override
        public List<Mop> apply(Session session, Invocation invocation) throws SQLException, OperationNotApplied {
            if (Names.FINAL_READ.equals(invocation.f())) {
                if (finalReadFailures.getAndDecrement() > 0) {
                    throw new SQLException("region server down", "08000", 101);
                }
                session.commitReads();
                return List.of(Mop.read(0, List.of()));
            }
            Step step = steps.poll();
            assertNull(step == null ? "more operations than scripted" : null);
            switch (step) {
                case ERROR_BEFORE_COMMIT -> throw new SQLException("table not found", "42M03", 1012);
                case NOT_APPLIED -> throw new OperationNotApplied("insufficient funds");
                default -> {
                }
            }
            session.commitWrites();
            switch (step) {
                case CONFLICT_AT_COMMIT -> throw new SQLException("write-write conflict", "42900", 523);
                case UNKNOWN_AT_COMMIT -> throw new SQLException("Outcome of transaction 7 is unknown", "XCL77",
                        1077);
                case RUNTIME_AT_COMMIT -> throw new IllegalStateException("connection reset");
                default -> {
                    return invocation.value();
                }
            }
        }

        @Override
        public Invocation finalRead() {
            return new Invocation(Names.FINAL_READ, List.of(Mop.read(0)));
        }

        @Override
        public Checker checker(CheckerOptions options) {
            return new ListAppendChecker(options);
        }
    }
}
