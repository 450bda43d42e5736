package io.phoenixtxn.history.workload;

import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the list-append generator promises the checker, and the VARCHAR encoding of lists. */
class ListAppendWorkloadTest {
    @Test
    void generatedOperationsKeepTheCheckersPromises() {
        ListAppendWorkload workload = new ListAppendWorkload("T", new ListAppendWorkload.Options(4, 10, 3, 0.3,
                ReadMode.SNAPSHOT, BetweenReads.NOTHING));
        Random random = new Random(7);
        Set<Long> elements = new HashSet<>();
        Set<Long> keysSeen = new HashSet<>();
        int reads = 0;
        int doubleAppends = 0;
        for (int i = 0; i < 3000; i++) {
            Invocation op = workload.next(random);
            if (Names.READ.equals(op.f())) {
                reads++;
                assertTrue(op.value().size() >= 2 && op.value().stream().allMatch(Mop::isRead), op.toString());
                continue;
            }
            Set<Long> appendedHere = new HashSet<>();
            for (int m = 0; m < op.value().size(); m++) {
                Mop mop = op.value().get(m);
                keysSeen.add(mop.key());
                if (mop.isAppend()) {
                    assertTrue(elements.add(mop.number()), "unique element " + mop);
                    Mop before = op.value().get(m - 1);
                    assertTrue(before.isRead() && before.key() == mop.key(), "each append follows a read of its key: "
                            + op);
                    if (!appendedHere.add(mop.key())) {
                        doubleAppends++;
                    }
                }
            }
        }
        assertTrue(reads > 600 && doubleAppends > 50, reads + " reads, " + doubleAppends + " double appends");
        long used = workload.finalRead().value().size();
        assertTrue(used > 100, "keys rotate: " + used);
        assertTrue(keysSeen.stream().allMatch(k -> k < used), "the final read covers every key used");
    }

    @Test
    void listsRoundTripThroughTheirVarcharEncoding() {
        assertEquals("3,10,-2", ListAppendWorkload.encode(List.of(3L, 10L, -2L)));
        assertEquals(List.of(3L, 10L, -2L), ListAppendWorkload.decode("3,10,-2"));
        assertEquals(List.of(), ListAppendWorkload.decode(null));
        assertEquals(List.of(), ListAppendWorkload.decode(""));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ListAppendWorkload.decode("1,,2"));
        assertTrue(e.getMessage().contains("'1,,2'"), e.getMessage());
    }
}
