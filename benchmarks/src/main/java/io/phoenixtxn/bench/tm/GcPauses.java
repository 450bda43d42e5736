package io.phoenixtxn.bench.tm;

import com.sun.management.GarbageCollectionNotificationInfo;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Stop-the-world GC pauses while a benchmark runs: count, total and longest, from the JVM's GC notifications.
 * Concurrent cycles (G1's "G1 Concurrent GC", whose duration is not a pause) are not counted.
 */
public final class GcPauses implements AutoCloseable {
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = (notification, handback) -> onNotification(notification);
    private long count;
    private long totalMillis;
    private long maxMillis;

    private GcPauses() {
    }

    /** Starts recording. */
    public static GcPauses record() {
        GcPauses pauses = new GcPauses();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(pauses.listener, null, null);
                pauses.emitters.add(emitter);
            }
        }
        return pauses;
    }

    private synchronized void onNotification(Notification notification) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        if (info.getGcName().contains("Concurrent")) {
            return;
        }
        long millis = info.getGcInfo().getDuration();
        count++;
        totalMillis += millis;
        maxMillis = Math.max(maxMillis, millis);
    }

    public synchronized long count() {
        return count;
    }

    public synchronized long maxMillis() {
        return maxMillis;
    }

    @Override
    public synchronized String toString() {
        return String.format(Locale.ROOT, "gc pauses=%d total=%dms max=%dms", count, totalMillis, maxMillis);
    }

    @Override
    public void close() {
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (ListenerNotFoundException e) {
                // already gone
            }
        }
    }
}
