package dev.zaelimiter.store.dynamodb;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * One update expression under construction: its placeholder names and values, its {@code SET}, {@code ADD} and
 * {@code REMOVE} clauses, and its conditions, those on the item as a whole apart from those on single limits.
 */
final class Expression {

    final Map<String, String> names = new HashMap<>();
    final Map<String, AttributeValue> values = new HashMap<>();
    final StringJoiner set = new StringJoiner(", ", "SET ", "").setEmptyValue("");
    final StringJoiner add = new StringJoiner(", ", "ADD ", "").setEmptyValue("");
    final StringJoiner remove = new StringJoiner(", ", "REMOVE ", "").setEmptyValue("");
    final StringJoiner onItem = new StringJoiner(" AND ");
    final StringJoiner onLimits = new StringJoiner(" AND ");

    String name(String attribute) {
        String placeholder = "#n" + names.size();
        names.put(placeholder, attribute);
        return placeholder;
    }

    String value(AttributeValue value) {
        String placeholder = ":v" + values.size();
        values.put(placeholder, value);
        return placeholder;
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
