package dev.zaelimiter;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The public naming checks apply the engine's rules and name the field that broke one. */
class NamesTest {

    @Test
    void wellFormedNamesComeBackUnchanged() {
        assertThat(Names.entityId("entityId", "user:42@org")).isEqualTo("user:42@org");
        assertThat(Names.limitName("limit", "tokens-per-day")).isEqualTo("tokens-per-day");
        assertThat(Names.resource("resource", "openai/gpt-4")).isEqualTo("openai/gpt-4");
        assertThat(Names.resourceOrDefault("resource", Names.DEFAULT_RESOURCE)).isEqualTo("_default_");
    }

    @Test
    void aBadNameIsATypedErrorNamingTheFieldAndTheRule() {
        assertThatThrownBy(() -> Names.entityId("entity", "-x"))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("entity");
                    assertThat(e.rule()).isEqualTo("an entity id starts with a letter or a digit");
                });
        assertThatThrownBy(() -> Names.limitName("limit", "a/b"))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("limit"));
        assertThatThrownBy(() -> Names.resource("resource", Names.DEFAULT_RESOURCE))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> Names.resource("resource", "r".repeat(257)))
                .isInstanceOfSatisfying(ValidationException.class,
                        e -> assertThat(e.rule()).isEqualTo("a resource name is at most 256 characters"));
    }
}
