package dev.zaelimiter.store.redis;

import dev.zaelimiter.ValidationException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link RedisStore.Builder#build()} names the option that is wrong and sends nothing to Redis. */
class RedisStoreBuilderTest {

    @Test
    void aStoreNeedsAClientOrAUri() {
        assertThatThrownBy(() -> RedisStore.builder().build()).isInstanceOfSatisfying(ValidationException.class,
                e -> assertThat(e.field()).isEqualTo("client"));
    }

    @Test
    void aPrefixHoldsNoSeparator() {
        for (String prefix : new String[] {"", "a#b", "x".repeat(65), "with space"}) {
            assertThatThrownBy(() -> RedisStore.builder().uri("redis://127.0.0.1:1").prefix(prefix).build())
                    .as(prefix).isInstanceOfSatisfying(ValidationException.class,
                            e -> assertThat(e.field()).isEqualTo("prefix"));
        }
    }

    @Test
    void deadlinesAndStampsOutOfRangeAreRefused() {
        assertThatThrownBy(() -> RedisStore.builder().requestTimeout(Duration.ZERO))
                .isInstanceOfSatisfying(ValidationException.class,
                        e -> assertThat(e.field()).isEqualTo("requestTimeout"));
        assertThatThrownBy(() -> RedisStore.builder().requestTimeout(Duration.ofDays(365L * 20)))
                .as("20 such deadlines overflow a long of nanoseconds")
                .isInstanceOfSatisfying(ValidationException.class,
                        e -> assertThat(e.field()).isEqualTo("requestTimeout"));
        assertThatThrownBy(() -> RedisStore.builder().uri("redis://127.0.0.1:1").stampTtl(Duration.ofSeconds(9))
                .build()).isInstanceOfSatisfying(ValidationException.class,
                        e -> assertThat(e.field()).isEqualTo("stampTtl"));
        assertThatThrownBy(() -> RedisStore.builder().uri("http://nowhere").build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("uri"));
    }

    @Test
    void buildingSendsNothing() {
        try (RedisStore store = RedisStore.builder().uri("redis://127.0.0.1:1").prefix("app-1").build()) {
            assertThat(store.commands()).isZero();
            assertThat(store.prefix()).isEqualTo("app-1");
            assertThat(store.requestTimeout()).isEqualTo(RedisStore.DEFAULT_REQUEST_TIMEOUT);
        }
    }
}
