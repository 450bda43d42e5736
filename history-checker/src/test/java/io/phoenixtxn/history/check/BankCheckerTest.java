package io.phoenixtxn.history.check;

import io.phoenixtxn.history.HistoryBuilder;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.phoenixtxn.history.check.ListAppendCheckerTest.assertFound;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hand-written bank histories: three accounts of 100; transfers carry unique ids logged in a ledger; readers sum all
 * balances in one transaction; the final read holds the balances and the ledger's ids.
 */
class BankCheckerTest {
    private final HistoryBuilder h = new HistoryBuilder();

    @BeforeEach
    void setUp() {
        h.invoke(-1, Names.SETUP, w(0, 100), w(1, 100), w(2, 100));
        h.ok(-1, w(0, 100), w(1, 100), w(2, 100));
    }

    @Test
    void consistentRunWithFailedAndUnknownTransfersIsValid() {
        transferOk(0, 1, 0, 1, 30);
        transferFailed(1, 2, 1, 2, 50);                 // 523: not in the ledger
        transferUnknown(2, 3, 2, 0, 10);                // 1077, committed: in the ledger
        transferUnknown(3, 4, 0, 2, 5);                 // 1077, not committed: not in the ledger
        read(4, 80, 130, 90);
        finalRead(List.of(1L, 3L), 80, 130, 90);
        assertTrue(check().valid(), check().report());
    }

    @Test
    void aReadWhoseTotalChanged() {
        transferOk(0, 1, 0, 1, 30);
        int bad = read(1, 100, 130, 100);              // saw the credit, missed the debit
        finalRead(List.of(1L), 70, 130, 100);
        assertFound(check(), AnomalyKind.WRONG_TOTAL, bad);
    }

    @Test
    void aReadMissingAnAccount() {
        int id = h.invoke(1, Names.READ, Mop.read(0), Mop.read(1));
        h.ok(1, Mop.read(0, 150), Mop.read(1, 150));
        finalRead(List.of(), 100, 100, 100);
        assertFound(check(), AnomalyKind.WRONG_TOTAL, id);
    }

    @Test
    void aNegativeBalance() {
        int bad = read(1, -10, 210, 100);
        finalRead(List.of(), 100, 100, 100);
        assertFound(check(), AnomalyKind.NEGATIVE_BALANCE, bad);
    }

    @Test
    void anAcknowledgedTransferMissingFromTheLedger() {
        int t = transferOk(0, 1, 0, 1, 30);
        int end = finalRead(List.of(), 100, 100, 100);
        assertFound(check(), AnomalyKind.LOST_WRITE, t, end);
    }

    @Test
    void aFailedTransferInTheLedger() {
        int t = transferFailed(0, 1, 0, 1, 30);
        int end = finalRead(List.of(1L), 70, 130, 100);
        assertFound(check(), AnomalyKind.G1A, t, end);
    }

    @Test
    void aLedgerIdNobodyWrote() {
        int end = finalRead(List.of(9L), 100, 100, 100);
        assertFound(check(), AnomalyKind.GARBAGE_READ, end);
    }

    @Test
    void finalBalancesThatDisagreeWithTheLedger() {
        transferOk(0, 1, 0, 1, 30);
        transferOk(1, 2, 0, 2, 20);
        // both read account 0 = 100 (a lost update): 0 = 70 from transfer 1, 2 = 120 from transfer 2
        int end = finalRead(List.of(1L, 2L), 70, 130, 120);
        assertFound(check(), AnomalyKind.LEDGER_MISMATCH, end);
        assertFound(check(), AnomalyKind.WRONG_TOTAL, end);
    }

    private CheckResult check() {
        return new BankChecker().check(h.build());
    }

    private static Mop w(long account, long balance) {
        return new Mop(Names.WRITE, account, balance);
    }

    private static Mop transfer(long id, long from, long to, long amount) {
        return new Mop(Names.TRANSFER, id, List.of(from, to, amount));
    }

    private int transferOk(int process, long id, long from, long to, long amount) {
        int op = h.invoke(process, Names.TRANSFER, transfer(id, from, to, amount));
        h.ok(process, transfer(id, from, to, amount));
        return op;
    }

    private int transferFailed(int process, long id, long from, long to, long amount) {
        int op = h.invoke(process, Names.TRANSFER, transfer(id, from, to, amount));
        h.fail(process, "523 conflict");
        return op;
    }

    private int transferUnknown(int process, long id, long from, long to, long amount) {
        int op = h.invoke(process, Names.TRANSFER, transfer(id, from, to, amount));
        h.info(process, "1077 outcome unknown");
        return op;
    }

    private int read(int process, long... balances) {
        List<Mop> asked = new ArrayList<>();
        List<Mop> seen = new ArrayList<>();
        for (int a = 0; a < balances.length; a++) {
            asked.add(Mop.read(a));
            seen.add(Mop.read(a, balances[a]));
        }
        int op = h.invoke(process, Names.READ, asked.toArray(new Mop[0]));
        h.ok(process, seen.toArray(new Mop[0]));
        return op;
    }

    private int finalRead(List<Long> ledger, long... balances) {
        List<Mop> seen = new ArrayList<>();
        for (int a = 0; a < balances.length; a++) {
            seen.add(Mop.read(a, balances[a]));
        }
        seen.add(new Mop(Names.LEDGER, 0, ledger));
        return h.finalRead(seen.toArray(new Mop[0]));
    }
}
