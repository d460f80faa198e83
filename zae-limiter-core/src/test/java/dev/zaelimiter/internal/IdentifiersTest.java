package dev.zaelimiter.internal;

import dev.zaelimiter.ValidationException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every character, checked against the rule an entity id follows after its first character. */
class IdentifiersTest {

    private static boolean allowedAfterFirst(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                || c == '_' || c == '.' || c == '-' || c == ':' || c == '@';
    }

    @Test
    void anEntityIdAcceptsExactlyLettersDigitsAndFiveMarksAfterItsFirstCharacter() {
        for (int i = 0; i <= Character.MAX_VALUE; i++) {
            char c = (char) i;
            String id = "a" + c + "z";
            if (allowedAfterFirst(c)) {
                assertThat(Identifiers.entityId("entityId", id)).isSameAs(id);
            } else {
                assertThatThrownBy(() -> Identifiers.entityId("entityId", id))
                        .as("character %d", i)
                        .isInstanceOf(ValidationException.class)
                        .hasMessageContaining("entityId")
                        .hasMessageContaining("found '" + c + "'");
            }
        }
    }
}
