package dev.zaelimiter.internal.schedule;

import java.util.Locale;

/**
 * The five fields of a pattern, in order, with their value ranges and (for months and days of week) their names.
 * A field's set of values is held as a bitset in a {@code long}: bit {@code v} is set when value {@code v} is
 * selected. Days of week use 0 (Sunday) to 6 (Saturday).
 */
enum CronField {

    MINUTE("minute", 0, 59, null),
    HOUR("hour", 0, 23, null),
    DAY_OF_MONTH("day-of-month", 1, 31, null),
    MONTH("month", 1, 12,
            new String[] {null, "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}),
    DAY_OF_WEEK("day-of-week", 0, 6, new String[] {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"});

    /** How the field is called in messages. */
    final String label;
    final int min;
    /** The largest value a field holds after parsing; day-of-week also accepts 7 on its own, stored as 0. */
    final int max;
    private final String[] names;
    final long full;

    CronField(String label, int min, int max, String[] names) {
        this.label = label;
        this.min = min;
        this.max = max;
        this.names = names;
        this.full = span(min, max, 1);
    }

    /** The bits {@code from, from + step, …} up to and including {@code to}. */
    static long span(int from, int to, int step) {
        long bits = 0;
        for (int v = from; v <= to; v += step) {
            bits |= 1L << v;
        }
        return bits;
    }

    boolean hasNames() {
        return names != null;
    }

    /** The number a name stands for in this field, or -1 if it names nothing here. */
    int valueOfName(String name) {
        if (names == null) {
            return -1;
        }
        String upper = name.toUpperCase(Locale.ROOT);
        for (int v = min; v <= max; v++) {
            if (upper.equals(names[v])) {
                return v;
            }
        }
        return -1;
    }

    /** The largest value the field accepts as written (day-of-week takes 7 for Sunday). */
    int maxWritten() {
        return this == DAY_OF_WEEK ? 7 : max;
    }

    String display(int value) {
        return names == null ? Integer.toString(value) : names[value];
    }

    /**
     * The canonical text for a set of values: {@code *} for all of them; names for months and days of week; runs of
     * three or more as ranges; for minutes, hours and days of the month, a progression that runs to the end of the
     * field as a step ({@code *}{@code /15}, {@code 5/15}). Days of week run Monday to Saturday with Sunday last,
     * always as {@code SUN} and never inside a range.
     */
    String render(long bits) {
        if (bits == full) {
            return "*";
        }
        if (names == null) {
            String step = renderStep(bits);
            if (step != null) {
                return step;
            }
        }
        StringBuilder out = new StringBuilder();
        if (this == DAY_OF_WEEK) {
            appendRuns(out, bits, 1, 6);
            if ((bits & 1L) != 0) {
                appendItem(out, "SUN");
            }
        } else {
            appendRuns(out, bits, min, max);
        }
        return out.toString();
    }

    private String renderStep(long bits) {
        if (Long.bitCount(bits) < 3) {
            return null;
        }
        int first = Long.numberOfTrailingZeros(bits);
        int second = Long.numberOfTrailingZeros(bits & ~(1L << first));
        int step = second - first;
        if (step < 2 || first >= min + step || bits != span(first, max, step)) {
            return null;
        }
        return (first == min ? "*" : Integer.toString(first)) + "/" + step;
    }

    private void appendRuns(StringBuilder out, long bits, int from, int to) {
        int v = from;
        while (v <= to) {
            if ((bits >>> v & 1L) == 0) {
                v++;
                continue;
            }
            int end = v;
            while (end + 1 <= to && (bits >>> (end + 1) & 1L) != 0) {
                end++;
            }
            if (end - v >= 2) {
                appendItem(out, display(v) + "-" + display(end));
            } else {
                for (int x = v; x <= end; x++) {
                    appendItem(out, display(x));
                }
            }
            v = end + 1;
        }
    }

    private static void appendItem(StringBuilder out, String item) {
        if (out.length() > 0) {
            out.append(',');
        }
        out.append(item);
    }
}
