package dev.zaelimiter.store.redis;

import dev.zaelimiter.AuditEvent;
import dev.zaelimiter.AuditQuery;
import dev.zaelimiter.UsageGranularity;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.UsageCounts;
import dev.zaelimiter.store.UsagePeriod;
import dev.zaelimiter.store.UsageWrite;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

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
        assertThatThrownBy(() -> RedisStore.builder().uri("redis://127.0.0.1:1")
                .stampTtl(RedisStore.MAX_STAMP_TTL.plusMillis(1)).build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("stampTtl"));
        RedisStore.builder().uri("redis://127.0.0.1:1").stampTtl(RedisStore.MAX_STAMP_TTL).build().close();
        assertThatThrownBy(() -> RedisStore.builder().uri("http://nowhere").build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("uri"));
    }

    @Test
    void retentionsOutOfRangeAreRefusedNamingTheOption() {
        Duration day = Duration.ofDays(1);
        Duration century = Duration.ofDays(36_600);
        assertField(() -> RedisStore.builder().usageRetention(Duration.ofHours(23), day), "usageRetention.hours");
        assertField(() -> RedisStore.builder().usageRetention(null, day), "usageRetention.hours");
        assertField(() -> RedisStore.builder().usageRetention(century.plusDays(1), century.plusDays(1)),
                "usageRetention.hours");
        assertField(() -> RedisStore.builder().usageRetention(Duration.ofDays(3), Duration.ofDays(2)),
                "usageRetention.days");
        assertField(() -> RedisStore.builder().usageRetention(day, century.plusDays(1)), "usageRetention.days");
        assertField(() -> RedisStore.builder().usageRetention(day, null), "usageRetention.days");
        assertField(() -> RedisStore.builder().auditRetention(Duration.ofHours(23)), "auditRetention");
        assertField(() -> RedisStore.builder().auditRetention(century.plusDays(1)), "auditRetention");
        assertField(() -> RedisStore.builder().auditRetention(null), "auditRetention");
        RedisStore.builder().usageRetention(day, day).auditRetention(century);
    }

    @Test
    void usageAndAuditKeysExpireAfterTheRetentionsSet() {
        MutableClock clock = MutableClock.start();
        try (RedisStore store = RedisTestStores.builder(clock)
                .usageRetention(Duration.ofDays(2), Duration.ofDays(5)).auditRetention(Duration.ofDays(3)).build()) {
            long start = clock.millis() / 3_600_000 * 3_600_000;
            for (UsageGranularity g : UsageGranularity.values()) {
                store.usage().add(new UsageWrite(new UsagePeriod(new BucketKey("user-1", "api"), g, start,
                        Map.of("rpm", new UsageCounts(1000, 1, 0, 0, 0))), "writer", 1));
            }
            AuditEvent event = new AuditEvent("e1", Instant.ofEpochMilli(clock.millis()), "admin", "set",
                    "user-1", "api", null, "{}");
            store.audit().append(event);

            Keys keys = new Keys(store.prefix(), null);
            String period = start + "#api#user-1";
            assertThat(ttl(keys.usagePeriods("H") + period)).isBetween(Duration.ofDays(2).minusMinutes(1),
                    Duration.ofDays(2));
            assertThat(ttl(keys.usagePeriods("D") + period)).isBetween(Duration.ofDays(5).minusMinutes(1),
                    Duration.ofDays(5));
            assertThat(ttl(keys.auditEvents() + AuditQuery.sortKey(event)))
                    .isBetween(Duration.ofDays(3).minusMinutes(1), Duration.ofDays(3));
        }
    }

    private static Duration ttl(String key) {
        return Duration.ofMillis(RedisTestStores.connection().sync().pttl(key));
    }

    private static void assertField(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String field) {
        assertThatThrownBy(call).as(field).isInstanceOfSatisfying(ValidationException.class,
                e -> assertThat(e.field()).isEqualTo(field));
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
