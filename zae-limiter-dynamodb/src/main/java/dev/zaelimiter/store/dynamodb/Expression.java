package dev.zaelimiter.store.dynamodb;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.regex.Pattern;

/**
 * One update expression under construction: its placeholder names and values, its {@code SET}, {@code ADD} and
 * {@code REMOVE} clauses, and its conditions, those on the item as a whole apart from those on single limits.
 *
 * <p>The server parses every byte, so the expression is kept short: an attribute name that can stand in an
 * expression as it is (letters, digits and underscores, not a reserved word) is written as it is, each other name
 * and each value gets one placeholder however often it is used, and placeholders are numbered in base 36.
 */
final class Expression {

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");
    /**
     * Our short names that are no reserved word of DynamoDB; a name with an underscore is none either (the reserved
     * words are letters only). {@code ttl} is reserved.
     */
    private static final Set<String> UNRESERVED = Set.of(ItemCodec.VERSION, ItemCodec.LAST_REFILL, ItemCodec.STAMP,
            ItemCodec.DEADLINE, ItemCodec.ENDS);

    private final Map<String, String> names = new HashMap<>();
    private final Map<String, String> namePlaceholders = new HashMap<>();
    final Map<String, AttributeValue> values = new HashMap<>();
    private final Map<AttributeValue, String> valuePlaceholders = new HashMap<>();
    final StringJoiner set = new StringJoiner(", ", "SET ", "").setEmptyValue("");
    final StringJoiner add = new StringJoiner(", ", "ADD ", "").setEmptyValue("");
    final StringJoiner remove = new StringJoiner(", ", "REMOVE ", "").setEmptyValue("");
    final StringJoiner onItem = new StringJoiner(" AND ");
    final StringJoiner onLimits = new StringJoiner(" AND ");

    /** {@code attribute} as the expression names it: as it is when it can be, else by its placeholder. */
    String name(String attribute) {
        if (PLAIN.matcher(attribute).matches()
                && (attribute.indexOf('_') >= 0 || UNRESERVED.contains(attribute))) {
            return attribute;
        }
        return namePlaceholders.computeIfAbsent(attribute, a -> {
            String placeholder = "#" + Integer.toString(names.size(), 36);
            names.put(placeholder, a);
            return placeholder;
        });
    }

    String value(AttributeValue value) {
        return valuePlaceholders.computeIfAbsent(value, v -> {
            String placeholder = ":" + Integer.toString(values.size(), 36);
            values.put(placeholder, v);
            return placeholder;
        });
    }

    /** The placeholder names, {@code null} when there are none (DynamoDB refuses an empty map). */
    Map<String, String> names() {
        return names.isEmpty() ? null : names;
    }

    /** A {@code SET} clause that writes {@code value} (a placeholder) to {@code attribute} only when it is absent. */
    String ifNotExists(String attribute, String value) {
        String name = name(attribute);
        return name + " = if_not_exists(" + name + ", " + value + ")";
    }

    /** The {@code SET}, {@code ADD} and {@code REMOVE} clauses, those that have any. */
    String update() {
        return String.join(" ", set.toString(), add.toString(), remove.toString()).trim();
    }
}
