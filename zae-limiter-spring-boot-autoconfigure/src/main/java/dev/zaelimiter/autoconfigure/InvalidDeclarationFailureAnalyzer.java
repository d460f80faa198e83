package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.Limit;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * Turns a bad property into a startup report that names the property, says why, and what to write for it: the
 * exception's own action when it has one, otherwise the form of the field the property ends at.
 */
class InvalidDeclarationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidDeclarationException> {

    private static final Pattern DECLARATION = Pattern.compile("zae\\.limiter\\.(system|resources|entities)(\\..*)?");
    private static final Pattern INDEX = Pattern.compile("\\[\\d+]$");

    /** What to write, by the last element of the property (without an index). */
    private static final Map<String, String> FORMS = Map.ofEntries(
            Map.entry("capacity", "a whole number greater than zero, such as capacity: 100 (tokens per refill"
                    + " period, or a quota's allowance)"),
            Map.entry("refill-amount", "a whole number greater than zero, such as refill-amount: 10, or remove it"
                    + " to refill the whole capacity each period"),
            Map.entry("refill-period", "a duration from 1ms to " + Limit.MAX_PERIOD.toDays() + " days, such as"
                    + " refill-period: 1m or 30s"),
            Map.entry("burst", "a whole number at least the capacity, such as burst: 200"),
            Map.entry("local-reservations", "true or false, on a hard limit that drips at one rate (no schedule,"
                    + " not soft, not a quota or concurrency limit)"),
            Map.entry("max-in-flight", "a whole number greater than zero, such as max-in-flight: 10, and nothing"
                    + " but lease-timeout, soft and schedule beside it"),
            Map.entry("lease-timeout", "a duration such as lease-timeout: 5m, on a limit that has max-in-flight"),
            Map.entry("fixed-window", "a duration such as fixed-window: 1h, and no reset-schedule or reset-after"
                    + " beside it"),
            Map.entry("window-origin", "an instant such as window-origin: 2024-01-01T00:00:00Z, beside a"
                    + " fixed-window"),
            Map.entry("reset-after", "a duration such as reset-after: 1h, and no reset-schedule beside it"),
            Map.entry("reset-schedule", "a single entry with a five-field cron, such as reset-schedule:"
                    + " [{cron: \"0 0 1 * *\", tz: UTC}], and no refill-amount, refill-period or burst beside it"),
            Map.entry("schedule", "at most " + Limit.MAX_SCHEDULE_ENTRIES + " entries, each with a cron and a scale or absolute values, all limits"
                    + " of one level in one time zone"),
            Map.entry("cron", "a five-field cron (minute hour day-of-month month day-of-week), such as"
                    + " cron: \"* 9-17 * * MON-FRI\""),
            Map.entry("tz", "an IANA time zone, such as tz: Europe/Berlin, America/New_York or UTC"),
            Map.entry("scale", "a number greater than zero, such as scale: 0.5, or absolute capacity and refill"
                    + " instead"),
            Map.entry("parent", "the id of a declared or existing root entity (one without a parent)"),
            Map.entry("limits", "at most " + Limit.MAX_LIMITS_PER_LEVEL + " limits with distinct names, at most one"
                    + " time zone among their schedules"),
            Map.entry("store", "auto, memory or dynamodb"),
            Map.entry("store-timeout", "a duration greater than zero, such as store-timeout: 500ms"),
            Map.entry("stamp-ttl", "a duration of at least 10s, such as stamp-ttl: 60s"),
            Map.entry("namespace", "letters, digits, - and _, such as namespace: orders"),
            Map.entry("table", "a DynamoDB table name: 3 to 255 letters, digits, _ - and ."),
            Map.entry("failure-threshold", "a whole number of at least 1, such as failure-threshold: 5"),
            Map.entry("cool-down", "a duration greater than zero, such as cool-down: 2s"),
            Map.entry("resource", "a resource name of letters, digits and _ . - /, such as resource: api"),
            Map.entry("source", "one of header, principal, remote-address, expression"),
            Map.entry("header", "a request header name, such as header: X-Api-Key"),
            Map.entry("expression", "a SpEL expression over the request, such as getHeader('X-Org')"),
            Map.entry("key", "a secret of at least 16 characters, from an environment variable say"),
            Map.entry("paths", "path patterns that start with /, such as paths: [/api/**]"),
            Map.entry("methods", "HTTP methods such as GET or POST, or nothing for every method"),
            Map.entry("max-wait", "a duration of zero or more, such as max-wait: 2s"),
            Map.entry("default", "an entity id, such as default: anonymous"));

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidDeclarationException cause) {
        return new FailureAnalysis(describe(cause.property()) + " '" + cause.property() + "' is invalid: "
                + cause.reason(), action(cause), cause);
    }

    /** What the property is: a declaration, a rule, or a setting. */
    static String describe(String property) {
        if (DECLARATION.matcher(property).matches()) {
            return "The rate limit declaration";
        }
        if (property.startsWith("zae.limiter.web.rules")) {
            return "The rate limit rule";
        }
        return property.startsWith("zae.limiter.") ? "The zae-limiter setting" : "The setting";
    }

    static String action(InvalidDeclarationException cause) {
        if (cause.action() != null) {
            return cause.action();
        }
        String property = cause.property();
        String field = INDEX.matcher(property.substring(property.lastIndexOf('.') + 1)).replaceAll("");
        String form = FORMS.get(field);
        if (form != null) {
            return "Write for '" + property + "' " + form + ".";
        }
        // a name the library refused: its own rule says what to change, rather than a copy of the naming rules here
        String rule = cause.rule() != null ? ": " + cause.rule() + "." : " as described above.";
        if (property.startsWith("zae.limiter.resources.") && property.indexOf('.', 22) < 0) {
            return "Rename the resource '" + property + "'" + rule + " Write names with other characters in"
                    + " brackets, such as \"[openai/gpt-4]\".";
        }
        if (property.startsWith("zae.limiter.entities.") && property.indexOf('.', 21) < 0) {
            return "Correct the entity '" + property + "'" + rule;
        }
        if (property.contains(".limits.") || property.contains(".consume.")) {
            return "Rename the limit '" + property + "'" + rule;
        }
        return "Correct '" + property + "' as described above.";
    }
}
