package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.CorruptStateException;
import dev.zaelimiter.StoreUnavailableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Numbers read from items: saturated to the {@code long} range like the in-memory store, never a raw parse error. */
class ItemCodecNumbersTest {

    @ParameterizedTest
    @CsvSource({
            "0, 0",
            "-42, -42",
            "123456789012345678, 123456789012345678",
            "9223372036854775807, 9223372036854775807",
            "-9223372036854775808, -9223372036854775808",
            "9223372036854775808, 9223372036854775807",
            "-9223372036854775809, -9223372036854775808",
            "-9999999999999991000, -9223372036854775808",
            "12000000000000000000, 9223372036854775807",
            "99999999999999999999999999999999999999, 9223372036854775807",
            "-1E+125, -9223372036854775808",
            "1E+3, 1000",
            "12.7, 12",
            "-12.2, -13",
            "0.5, 0",
            "-0.5, -1",
            "1E-130, 0",
            "+7, 7"})
    void readsAndSaturates(String stored, long expected) {
        assertThat(ItemCodec.longOf(AttributeValue.fromN(stored))).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "abc", "12abc", "1e", "--1", "NaN", "Infinity", "0x10"})
    void aNonNumberIsACorruptState(String stored) {
        assertThatThrownBy(() -> ItemCodec.longOf(AttributeValue.fromN(stored)))
                .isInstanceOf(CorruptStateException.class)
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("not a number");
    }

    @Test
    void anAttributeOfAnotherTypeOrNoneIsACorruptState() {
        assertThatThrownBy(() -> ItemCodec.longOf(AttributeValue.fromS("12")))
                .isInstanceOf(CorruptStateException.class).hasMessageContaining("another type");
        assertThatThrownBy(() -> ItemCodec.longOf(null))
                .isInstanceOf(CorruptStateException.class).hasMessageContaining("nothing");
    }

    @Test
    void aLongGarbageValueIsAbbreviatedInTheMessage() {
        assertThatThrownBy(() -> ItemCodec.longOf(AttributeValue.fromN("x".repeat(100_000))))
                .isInstanceOf(CorruptStateException.class)
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(300).contains("100000 chars"));
    }

    @Test
    void writtenNumbersReadBack() {
        for (long v : new long[] {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE}) {
            assertThat(ItemCodec.longOf(ItemCodec.number(v))).isEqualTo(v);
        }
    }
}
