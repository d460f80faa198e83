package dev.zaelimiter.store.redis;

import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The script's decisions at the ends of its arithmetic, against the in-memory store on the same clock: a limit of
 * 10<sup>9</sup> tokens a second near the year 2100 (its grid points there pass 2<sup>80</sup>), idle spans whose
 * refill passes 2<sup>53</sup> milli-tokens, a refill period whose grid remainder needs more than 53 bits, and
 * debts of 10<sup>12</sup> and 10<sup>15</sup> tokens (the second beyond what the script takes: written whole),
 * consumption past 2<sup>53</sup> milli-tokens, and a long idle span that may not pay a debt back (declined). Two
 * processes take turns, so that every decision is made on a bucket the other one wrote last.
 */
class RedisServerDecisionTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2099-12-31T23:59:58.123Z"));
    private final RateLimiter memory = limiter(new InMemoryStore());
    private RedisStore first;
    private RedisStore second;
    private List<RateLimiter> processes;
    private int turn;

    @BeforeEach
    void setUp() {
        first = RedisTestStores.builder(clock).stampTtl(Duration.ofDays(400)).build();
        second = RedisTestStores.builder(clock).prefix(first.prefix()).stampTtl(Duration.ofDays(400)).build();
        first.withoutShortcuts();             // the script decides from the buckets as stored, not as sent
        second.withoutShortcuts();
        processes = List.of(limiter(first), limiter(second));
    }

    @AfterEach
    void tearDown() {
        first.close();
        second.close();
    }

    @Test
    void aBillionTokensASecondNearTheYear2100() {
        configure(Limit.perSecond("fast", 1_000_000_000L));
        long[] waits = {0, 1, 3, 999, 5_000, 7_200_000, 1, 2, 86_400_000, 13};
        long[] amounts = {1, 999_999_999, 7, 1_000_000_000, 123_456_789, 1_000_000_000, 999_999, 3, 5, 2};
        long before = commands();
        for (int i = 0; i < waits.length; i++) {
            clock.advance(Duration.ofMillis(waits[i]));
            both(acquire(Map.of("fast", amounts[i])));
            both(available());
            both(available());
        }
        assertThat(commands() - before).as("each call one script run").isEqualTo(3L * waits.length);
    }

    @Test
    void aRefillWhoseGridRemainderNeedsMoreThan53Bits() {
        configure(Limit.custom("odd", 1_000_000, 999_999_929, Duration.ofMillis(999_999_937)));
        long[] waits = {0, 1, 3, 999, 1_000, 2};
        long before = commands();
        for (int i = 0; i < waits.length; i++) {
            clock.advance(Duration.ofMillis(waits[i]));
            both(acquire(Map.of("odd", 10_000L + i)));
            both(available());
            both(available());
        }
        assertThat(commands() - before).as("each call one script run").isEqualTo(3L * waits.length);
        clock.advance(Duration.ofDays(1));       // the refill passes 2^52 milli-tokens, surely filling the bucket
        before = commands();
        both(acquire(Map.of("odd", 999_999L)));
        assertThat(commands() - before).as("the script takes it as full").isEqualTo(1);
        assertThat(writeModeRuns()).isZero();
        both(inspect());
    }

    @Test
    void debtsOfATrillionAndOfAQuadrillionTokens() {
        configure(Limit.perSecond("soft", 1000).soft(), Limit.perHour("hard", 5));
        long before = commands();
        both(acquire(Map.of("soft", 1_000_000_000_000L, "hard", 1L)));
        for (long wait : new long[] {1_000, 3_600_000, 31_536_000_000L}) {
            clock.advance(Duration.ofMillis(wait));
            both(acquire(Map.of("soft", 1L, "hard", 1L)));
            both(inspect());
        }
        assertThat(commands() - before).as("a debt of 10^15 milli-tokens: one run each").isEqualTo(7);
        assertThat(writeModeRuns()).isZero();
        both(acquire(Map.of("soft", Limit.MAX_TOKENS)));
        assertThat(writeModeRuns()).as("an amount past 2^52: written whole").isEqualTo(1);
        for (long wait : new long[] {1_000, 3_600_000, 31_536_000_000L}) {
            clock.advance(Duration.ofMillis(wait));
            both(acquire(Map.of("soft", 5L, "hard", 1L)));
            both(inspect());
        }
    }

    @Test
    void consumptionPast2To53MilliTokensStaysExactWithOneRunPerCall() {
        configure(Limit.perSecond("bytes", 4_000_000_000_000L));
        for (int i = 0; i < 3; i++) {
            both(acquire(Map.of("bytes", 4_000_000_000_000L)));        // 1.2 * 10^16 milli-tokens consumed
            clock.advance(Duration.ofSeconds(1));
        }
        long before = commands();
        for (int i = 0; i < 10; i++) {
            both(acquire(Map.of("bytes", 1L)));
        }
        assertThat(commands() - before).as("each call one script run").isEqualTo(10);
        assertThat(writeModeRuns()).isZero();
        both(inspect());
    }

    @Test
    void consumptionCountersCrossTheirPartsOf10To15MilliTokensBothWays() {
        configure(Limit.perSecond("bytes", 4_000_000_000_000L).soft());
        Lease lease = processes.get(0).acquire("user-1", "api", Map.of("bytes", 1L));
        Lease mirror = memory.acquire("user-1", "api", Map.of("bytes", 1L));
        for (long by : new long[] {-1_500_000_000_000L, -3L, 1_500_000_000_002L, 999_999_999_999L, -1L,
                3_000_000_000_000L}) {
            lease.adjust("bytes", by);                                  // negative, across zero, onto 10^15
            mirror.adjust("bytes", by);
            both(inspect());
        }
        assertThat(writeModeRuns()).isZero();
    }

    @Test
    void aLongIdleSpanThatMayNotPayADebtBackIsDecidedInWriteMode() {
        configure(Limit.perSecond("soft", 1_000_000_000L).soft());
        both(acquire(Map.of("soft", 4_000_000_000_000L)));
        both(acquire(Map.of("soft", 4_000_000_000_000L)));          // owes about 8 * 10^15 milli-tokens
        clock.advance(Duration.ofMillis(4_600_000));                 // the refill passes 2^52, short of the debt
        long before = commands();
        both(acquire(Map.of("soft", 1L)));
        assertThat(commands() - before).as("the script declines, the write mode decides").isEqualTo(2);
        assertThat(writeModeRuns()).isEqualTo(1);
        before = commands();
        both(acquire(Map.of("soft", 1L)));
        assertThat(commands() - before).as("then the script again").isEqualTo(1);
        both(inspect());
    }

    @Test
    void adjustmentsAreDecidedByTheScriptOnABucketAnotherProcessWrote() {
        configure(Limit.perMinute("rpm", 600));
        Lease lease = processes.get(0).acquire("user-1", "api", Map.of("rpm", 100L));
        Lease mirror = memory.acquire("user-1", "api", Map.of("rpm", 100L));
        long before = commands();
        takeOnTheSecondProcess(10);
        lease.adjust("rpm", 400);
        mirror.adjust("rpm", 400);
        both(available());
        clock.advance(Duration.ofSeconds(30));                     // 300 tokens back
        takeOnTheSecondProcess(5);
        lease.adjust("rpm", -450);                                  // never above the capacity
        mirror.adjust("rpm", -450);
        both(inspect());
        assertThat(commands() - before).as("one run each").isEqualTo(6);
    }

    private void takeOnTheSecondProcess(long amount) {
        processes.get(1).acquire("user-1", "api", Map.of("rpm", amount)).close();
        memory.acquire("user-1", "api", Map.of("rpm", amount)).close();
    }

    private void configure(Limit... limits) {
        for (RateLimiter limiter : List.of(processes.get(0), processes.get(1), memory)) {
            limiter.admin().setResourceDefaults("api", List.of(limits));
        }
        for (RateLimiter limiter : processes) {
            limiter.available("user-1", "api");                      // the configuration is loaded
        }
    }

    private long commands() {
        return first.commands() + second.commands();
    }

    private long writeModeRuns() {
        return first.writeModeRuns() + second.writeModeRuns();
    }

    /** Runs {@code call} on the in-memory store and on the next Redis process, and compares their answers. */
    private void both(Function<RateLimiter, Object> call) {
        Object expected = answer(call, memory);
        Object actual = answer(call, processes.get(turn++ % 2));
        assertThat(actual).isEqualTo(expected);
    }

    private static Object answer(Function<RateLimiter, Object> call, RateLimiter limiter) {
        try {
            return call.apply(limiter);
        } catch (RateLimitExceededException e) {
            return "refused " + e.statuses();
        }
    }

    private static Function<RateLimiter, Object> acquire(Map<String, Long> amounts) {
        return limiter -> {
            try (Lease lease = limiter.acquire("user-1", "api", amounts)) {
                return "admitted " + lease.statuses();
            }
        };
    }

    private static Function<RateLimiter, Object> available() {
        return limiter -> new TreeMap<>(limiter.available("user-1", "api"));
    }

    private static Function<RateLimiter, Object> inspect() {
        return limiter -> limiter.inspect("user-1", "api").limits();
    }

    private RateLimiter limiter(LimiterStore store) {
        return RateLimiter.builder().store(store).clock(clock).noCircuitBreaker()
                .usageFlushInterval(Duration.ZERO).build();
    }
}
