package dev.zaelimiter.internal.schedule;

import dev.zaelimiter.ValidationException;

import java.util.Locale;

/**
 * Our own rules, checked on the text of each field before cron-utils sees it, so that every rejection names the
 * problem in our words and says what to write instead: no {@code L}, {@code W}, {@code #} or {@code ?}; values in
 * range; steps from 1 to the field's largest value; ranges that run forwards; and Sunday as 0 inside day-of-week
 * ranges and steps.
 */
final class CronSyntax {

    private CronSyntax() {
    }

    /** Checks the five fields of {@code expression} (already split on whitespace). */
    static void check(String field, String expression, String[] parts) {
        CronField[] fields = CronField.values();
        for (int i = 0; i < fields.length; i++) {
            new FieldCheck(field, expression, fields[i], parts[i]).run();
        }
    }

    private static final class FieldCheck {

        private final String field;
        private final String expression;
        private final CronField cronField;
        private final String text;

        FieldCheck(String field, String expression, CronField cronField, String text) {
            this.field = field;
            this.expression = expression;
            this.cronField = cronField;
            this.text = text;
        }

        void run() {
            if (text.indexOf('?') >= 0) {
                fail("the " + cronField.label + " field uses ?, which is not supported; write * for a field that"
                        + " should match every value");
            }
            if (text.indexOf('#') >= 0) {
                fail("the " + cronField.label + " field uses # (nth weekday of the month), which is not supported;"
                        + " write the day of week alone (such as MON) or list the days of the month you mean");
            }
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (!isDigit(c) && !isLetter(c) && c != '*' && c != ',' && c != '-' && c != '/') {
                    fail("the " + cronField.label + " field contains '" + c + "'; a field holds numbers"
                            + (cronField.hasNames() ? " or names" : "") + ", * for every value, lists (1,3),"
                            + " ranges (1-5) and steps (*/15)");
                }
            }
            for (String item : text.split(",", -1)) {
                if (item.isEmpty()) {
                    fail("the " + cronField.label + " field '" + text + "' has an empty list entry; remove the"
                            + " extra comma");
                }
                item(item);
            }
        }

        private void item(String item) {
            String[] slash = item.split("/", -1);
            if (slash.length > 2) {
                fail("the " + cronField.label + " entry '" + item + "' has more than one step; write a single"
                        + " step, such as */15 or 1-30/5");
            }
            String base = slash[0];
            int step = 1;
            if (slash.length == 2) {
                step = step(item, slash[1]);
                if (base.isEmpty()) {
                    fail("the " + cronField.label + " entry '" + item + "' has a step but no start; write */"
                            + slash[1] + " or FROM/" + slash[1]);
                }
            }
            if (base.equals("*")) {
                return;
            }
            String[] dash = base.split("-", -1);
            if (dash.length > 2 || dash[0].isEmpty() || (dash.length == 2 && dash[1].isEmpty())) {
                fail("the " + cronField.label + " entry '" + item + "' is not a range; write a range as FROM-TO"
                        + " with two values, such as " + example() + " (negative values are not allowed)");
            }
            int from = value(dash[0]);
            if (dash.length == 1) {
                if (cronField == CronField.DAY_OF_WEEK && from == 7 && slash.length == 2) {
                    fail("the day-of-week step '" + item + "' starts at 7, but Sunday is 0 in a step; write 0/"
                            + step + " (SUN/" + step + ")");
                }
                return;
            }
            int to = value(dash[1]);
            String range = upper(base) + (slash.length == 2 ? "/" + step : "");
            if (cronField == CronField.DAY_OF_WEEK) {
                if (from == 7) {
                    fail("the day-of-week range " + range + " starts at 7, but Sunday is 0 inside a range, so"
                            + " the range runs backwards; write * or a list instead (here: "
                            + CronField.DAY_OF_WEEK.render(CronField.span(0, to % 7, step)) + ")");
                }
                if (to == 7 || (to == 0 && from != 0)) {
                    long meant = 0;
                    for (int v = from; v <= 7; v += step) {
                        meant |= 1L << (v % 7);
                    }
                    fail("the day-of-week range " + range + " ends at Sunday, but Sunday is 0 inside a range, so"
                            + " the range runs backwards; write * or a list instead (here: "
                            + CronField.DAY_OF_WEEK.render(meant) + ")");
                }
            }
            if (from > to) {
                String instead = step == 1
                        ? "write " + cronField.render(CronField.span(from, cronField.max, 1)
                                | CronField.span(cronField.min, to, 1)) + " instead"
                        : "split it into two ranges that each run forwards, such as "
                                + cronField.display(from) + "-" + cronField.display(cronField.max) + "/" + step
                                + " and " + cronField.display(cronField.min) + "-" + cronField.display(to) + "/"
                                + step;
                fail("the " + cronField.label + " range " + range + " runs backwards (a range does not wrap"
                        + " around); " + instead);
            }
        }

        private int step(String item, String stepText) {
            if (stepText.isEmpty() || !allDigits(stepText)) {
                fail("the step in the " + cronField.label + " entry '" + item + "' must be a whole number, such as"
                        + " */" + Math.min(15, cronField.max));
            }
            int step = stepText.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(stepText);
            if (step < 1 || step > cronField.max) {
                fail("the step in the " + cronField.label + " entry '" + item + "' is out of range; write a step"
                        + " from 1 to " + cronField.max);
            }
            return step;
        }

        private int value(String token) {
            if (allDigits(token)) {
                int v = token.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(token);
                if (v < cronField.min || v > cronField.maxWritten()) {
                    fail("the " + cronField.label + " value " + token + " is out of range; write " + allowed());
                }
                return v;
            }
            int named = cronField.valueOfName(token);
            if (named >= 0) {
                return named;
            }
            String upper = upper(token);
            if (upper.matches("\\d*LW|\\d*W")) {
                fail("the " + cronField.label + " field uses W (nearest weekday), which is not supported; write"
                        + " the days of the month you mean, or restrict the day-of-week field instead (such as"
                        + " MON-FRI)");
            }
            if (upper.matches("\\d*L")) {
                fail("the " + cronField.label + " field uses L (last), which is not supported; name the days"
                        + " explicitly, and for the end of a month act at the start of the next one (such as"
                        + " 0 0 1 * *)");
            }
            if (cronField.hasNames() && allLetters(token)) {
                fail("'" + token + "' is not a " + cronField.label + " name; write " + allowed());
            }
            if (allLetters(token)) {
                fail("the " + cronField.label + " field takes numbers, not names like '" + token + "'; write "
                        + allowed());
            }
            fail("'" + token + "' is not a " + cronField.label + " value; write " + allowed());
            return -1;
        }

        private String allowed() {
            switch (cronField) {
                case MONTH:
                    return "1 to 12 or JAN to DEC";
                case DAY_OF_WEEK:
                    return "0 to 7 (0 and 7 are both Sunday) or SUN to SAT";
                default:
                    return cronField.min + " to " + cronField.max;
            }
        }

        private String example() {
            switch (cronField) {
                case MONTH:
                    return "JAN-MAR";
                case DAY_OF_WEEK:
                    return "MON-FRI";
                case HOUR:
                    return "9-17";
                default:
                    return "1-15";
            }
        }

        private void fail(String rule) {
            throw new ValidationException(field, expression, rule);
        }
    }

    private static String upper(String s) {
        return s.toUpperCase(Locale.ROOT);
    }

    private static boolean allDigits(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean allLetters(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!isLetter(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }
}
