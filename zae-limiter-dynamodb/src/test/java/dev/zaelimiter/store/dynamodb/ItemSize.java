package dev.zaelimiter.store.dynamodb;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** An item's size as DynamoDB bills it: attribute names plus values (strings UTF-8, numbers by digits). */
final class ItemSize {

    private ItemSize() {
    }

    static int bytes(Map<String, AttributeValue> item) {
        int size = 0;
        for (Map.Entry<String, AttributeValue> e : item.entrySet()) {
            size += e.getKey().getBytes(StandardCharsets.UTF_8).length + value(e.getValue());
        }
        return size;
    }

    private static int value(AttributeValue v) {
        if (v.s() != null) {
            return v.s().getBytes(StandardCharsets.UTF_8).length;
        }
        if (v.n() != null) {
            // up to 38 significant digits, 2 digits per byte, plus one byte
            return (new BigDecimal(v.n()).stripTrailingZeros().precision() + 1) / 2 + 1;
        }
        if (v.bool() != null) {
            return 1;
        }
        if (v.hasM()) {
            return 3 + v.m().entrySet().stream()
                    .mapToInt(e -> e.getKey().length() + 1 + value(e.getValue())).sum();
        }
        if (v.hasL()) {
            return 3 + v.l().stream().mapToInt(x -> 1 + value(x)).sum();
        }
        return 1;
    }
}
