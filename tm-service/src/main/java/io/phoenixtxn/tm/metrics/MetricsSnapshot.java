package io.phoenixtxn.tm.metrics;

import org.apache.hadoop.metrics2.AbstractMetric;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.MetricsTag;
import org.apache.hadoop.metrics2.lib.Interns;

import java.util.Map;
import java.util.TreeMap;

/**
 * One reading of a metrics2 source as a map of metric name to value, without a metrics system: what JMX or a sink
 * would be given at that moment (tests, and tools that print metrics). Tags and record names are dropped.
 */
public final class MetricsSnapshot {
    private MetricsSnapshot() {
    }

    /** Every metric {@code source} reports now ({@code all = true}, as a JMX read does). */
    public static Map<String, Number> of(MetricsSource source) {
        Map<String, Number> values = new TreeMap<>();
        source.getMetrics(new Collector(values), true);
        return values;
    }

    private static final class Collector implements MetricsCollector {
        private final Map<String, Number> values;

        Collector(Map<String, Number> values) {
            this.values = values;
        }

        @Override
        public MetricsRecordBuilder addRecord(String name) {
            return addRecord(Interns.info(name, name));
        }

        @Override
        public MetricsRecordBuilder addRecord(MetricsInfo info) {
            return new Builder(this, values);
        }
    }

    private static final class Builder extends MetricsRecordBuilder {
        private final MetricsCollector parent;
        private final Map<String, Number> values;

        Builder(MetricsCollector parent, Map<String, Number> values) {
            this.parent = parent;
            this.values = values;
        }

        private MetricsRecordBuilder put(MetricsInfo info, Number value) {
            values.put(info.name(), value);
            return this;
        }

        @Override
        public MetricsRecordBuilder tag(MetricsInfo info, String value) {
            return this;
        }

        @Override
        public MetricsRecordBuilder add(MetricsTag tag) {
            return this;
        }

        @Override
        public MetricsRecordBuilder add(AbstractMetric metric) {
            values.put(metric.name(), metric.value());
            return this;
        }

        @Override
        public MetricsRecordBuilder setContext(String value) {
            return this;
        }

        @Override
        public MetricsRecordBuilder addCounter(MetricsInfo info, int value) {
            return put(info, value);
        }

        @Override
        public MetricsRecordBuilder addCounter(MetricsInfo info, long value) {
            return put(info, value);
        }

        @Override
        public MetricsRecordBuilder addGauge(MetricsInfo info, int value) {
            return put(info, value);
        }

        @Override
        public MetricsRecordBuilder addGauge(MetricsInfo info, long value) {
            return put(info, value);
        }

        @Override
        public MetricsRecordBuilder addGauge(MetricsInfo info, float value) {
            return put(info, value);
        }

        @Override
        public MetricsRecordBuilder addGauge(MetricsInfo info, double value) {
            return put(info, value);
        }

        @Override
        public MetricsCollector parent() {
            return parent;
        }
    }
}
