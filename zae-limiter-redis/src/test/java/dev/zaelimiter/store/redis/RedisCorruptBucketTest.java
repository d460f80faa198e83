package dev.zaelimiter.store.redis;

import dev.zaelimiter.CorruptStateException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.MutableClock;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A bucket damaged outside the limiter ends in a typed {@link CorruptStateException} that names it and says how to
 * repair it, whichever mode of {@code bucket.lua} meets it (the decide mode answers that it cannot read it; a Lua
 * error would be taken for an unavailable Redis), and nothing is written over it.
 */
class RedisCorruptBucketTest {

    private final MutableClock clock = MutableClock.start();
    private final RedisStore writer = RedisTestStores.newStore(clock);
    private final RedisStore reader = RedisTestStores.builder(clock).prefix(writer.prefix()).build();
    private final String key = writer.prefix() + "#E#user-1#B#api";

    @AfterEach
    void tearDown() {
        writer.close();
        reader.close();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "s | 1700000000000\\nrps-without-tabs",
            "s | 1700000000000\\nrps\\tmany\\t0\\t-9223372036854775808\\t",
            "s | soon\\nrps\\t1000\\t0\\t-9223372036854775808\\t",
            "s | 1700000000000\\nrps\\t1000\\tlots\\t-9223372036854775808\\t",
            "d | tomorrow",
            "x | later"})
    void aDamagedBucketIsACorruptStateForTheScriptAndNothingIsWrittenOverIt(String field, String value) {
        RateLimiter first = limiter(writer);
        first.admin().setResourceDefaults("api", List.of(Limit.perMinute("rps", 100)));
        first.acquire("user-1", "api", Map.of("rps", 1L)).close();
        redis().hset(key, field, value.replace("\\n", "\n").replace("\\t", "\t"));
        Map<String, String> damaged = redis().hgetall(key);

        RateLimiter second = limiter(reader);
        assertThatThrownBy(() -> second.acquire("user-1", "api", Map.of("rps", 1L)))
                .isInstanceOf(CorruptStateException.class)
                .hasMessageContaining(key).hasMessageContaining("RateLimiterAdmin.resetBucket");
        assertThat(redis().hgetall(key)).isEqualTo(damaged);
        assertThat(reader.writeModeRuns()).as("the script said so itself").isZero();
    }

    @Test
    void aResetRepairsIt() {
        RateLimiter first = limiter(writer);
        first.admin().setResourceDefaults("api", List.of(Limit.perMinute("rps", 100)));
        first.acquire("user-1", "api", Map.of("rps", 1L)).close();
        redis().hset(key, "s", "1700000000000\nrps-without-tabs");
        RateLimiter second = limiter(reader);
        second.admin().resetBucket("user-1", "api");
        second.acquire("user-1", "api", Map.of("rps", 1L)).close();
        assertThat(second.available("user-1", "api")).containsEntry("rps", 99L);
    }

    private RateLimiter limiter(RedisStore store) {
        return RateLimiter.builder().store(store).clock(clock).noCircuitBreaker().usageFlushInterval(Duration.ZERO)
                .build();
    }

    private static RedisCommands<String, String> redis() {
        return RedisTestStores.connection().sync();
    }
}
