package dev.zaelimiter;

import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.ForwardingStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The in-memory store decides a one-bucket, one-limit call in place, without the objects of the general path. This
 * test runs the same random histories through a limiter on the store as it is (in place) and through one whose
 * store hides that ability (every call planned and decided the general way), on one clock, and requires the same
 * answers: admitted or refused, statuses, retry-after, balances, consumption and usage. The histories go through idle spells,
 * bursts far above the limit, a clock that steps back, amounts at the edges, configuration changes between one and
 * several limits, soft limits, bypass, schedules, quotas and sessions, and corrections after admission.
 */
class InPlaceDecisionTest {

    private static final String RESOURCE = "api";

    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-02T10:15:30.250Z"));
    private final RateLimiter inPlace = RateLimiter.builder().store(new InMemoryStore()).clock(clock)
            .usageFlushInterval(Duration.ZERO).build();
    private final RateLimiter general = RateLimiter.builder().store(new ForwardingStore(new InMemoryStore()))
            .clock(clock).usageFlushInterval(Duration.ZERO).build();

    @Test
    void theInMemoryStoreDecidesInPlaceAndAStoreThatForwardsDoesNot() {
        assertThat(new InMemoryStore().inPlaceBuckets()).isNotNull();
        assertThat(new ForwardingStore(new InMemoryStore()).inPlaceBuckets()).isNull();
    }

    @Test
    void aLeaseDecidedInPlaceCannotBeToldAnotherDecision() {
        configure(List.of(Limit.perMinute("rps", 2)));
        Map<String, Long> one = Map.of("rps", 1L);
        inPlace.acquire("user-1", RESOURCE, one).close();                      // the next ones are in place
        Lease lease = inPlace.acquire("user-1", RESOURCE, one);
        Attempt refused = inPlace.tryAcquire("user-1", RESOURCE, one);

        assertThat(lease).isNotInstanceOf(InPlaceBuckets.Outcome.class);
        assertThat(lease.statuses()).singleElement().satisfies(status -> assertThat(status.available()).isZero());
        assertThat(refused.admitted()).isFalse();
        assertThat(refused).isNotInstanceOf(InPlaceBuckets.Outcome.class);
        assertThat(refused.statuses()).singleElement().satisfies(status -> assertThat(status.exceeded()).isTrue());
    }

    @Test
    void randomHistoriesGetTheSameAnswersInPlaceAndPlanned() {
        for (long seed = 1; seed <= 60; seed++) {
            history(new Random(seed), seed);
        }
    }

    @Test
    void inspectingALimitThatReplacedASessionQuotaWhileItsSessionRanShowsNoSessionReset() {
        inPlace.admin().setResourceDefaults(RESOURCE, List.of(Limit.sessionQuota("rps", 6, Duration.ofSeconds(5))));
        inPlace.acquire("user-1", RESOURCE, Map.of("rps", 1L)).close();
        inPlace.admin().setResourceDefaults(RESOURCE, List.of(Limit.perSecond("rps", 5)));
        inPlace.acquire("user-1", RESOURCE, Map.of("rps", 1L)).close();

        LimitView view = inPlace.inspect("user-1", RESOURCE).limits().get(0);

        assertThat(view.nextReset()).isNull();
        assertThat(view.consumed()).isEqualTo(2);
    }

    @Test
    void aRefusalDecidedInPlaceExplainsItselfWhenReadAsItWasWhenDecided() {
        inPlace.admin().setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rps", 2)));
        inPlace.acquire("user-1", RESOURCE, Map.of("rps", 1L)).close();
        inPlace.acquire("user-1", RESOURCE, Map.of("rps", 1L)).close();          // the next ones are in place
        RateLimitExceededException unread = catchThrowableOfType(RateLimitExceededException.class,
                () -> inPlace.acquire("user-1", RESOURCE, Map.of("rps", 1L)));
        Duration expected = inPlace.checkAvailability("user-1", RESOURCE, Map.of("rps", 1L)).retryAfter();
        assertThat(expected).isPositive();
        clock.advance(Duration.ofSeconds(30));                                   // reading later changes nothing

        for (RateLimitExceededException e : List.of(unread, unread)) {                // read twice
            assertThat(e.retryAfter()).isEqualTo(expected);
            assertThat(e.violations()).singleElement().satisfies(status -> {
                assertThat(status.available()).isZero();
                assertThat(status.retryAfter()).isEqualTo(expected);
            });
            assertThat(e.getMessage()).contains("user-1/api/rps", "retry after " + expected.toMillis() + " ms");
            assertThat(e.getStackTrace()).isEmpty();
        }
    }

    @Test
    void aMissingEntityResourceOrAmountsIsAValidationErrorOnEveryEntryPoint() {
        configure(List.of(Limit.perSecond("rps", 5)));
        for (RateLimiter limiter : List.of(inPlace, general)) {
            limiter.acquire("user-1", RESOURCE, Map.of("rps", 1L)).close();      // the resolution is known
            assertThatThrownBy(() -> limiter.acquire("user-1", null, Map.of("rps", 1L)))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("resource"));
            assertThatThrownBy(() -> limiter.tryAcquire("user-1", null, Map.of("rps", 1L)))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("resource"));
            assertThatThrownBy(() -> limiter.tryAcquire(null, RESOURCE, Map.of("rps", 1L)))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("entityId"));
            assertThatThrownBy(() -> limiter.acquire(AcquireRequest.of("user-1", null).consume("rps", 1)))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("resource"));
            assertThatThrownBy(() -> limiter.acquire("user-1", RESOURCE, null))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("consume"));
            java.util.HashMap<String, Long> mutable = new java.util.HashMap<>(Map.of("rps", 1L));
            Lease lease = limiter.acquire("user-1", RESOURCE, mutable);       // a copy is taken, as before
            mutable.put("rps", 1_000L);
            assertThat(lease.statuses().get(0).requested()).isEqualTo(1);
        }
    }

    private static List<List<Limit>> configurations() {
        ZoneId utc = ZoneOffset.UTC;
        return List.of(
                List.of(Limit.perSecond("rps", 5)),
                List.of(Limit.perMinute("rps", 90).withBurst(120)),
                List.of(Limit.custom("rps", 7, 3, Duration.ofMillis(700))),
                List.of(Limit.perSecond("rps", 3).soft()),
                List.of(Limit.quota("rps", 4, "0 * * * *", utc)),
                List.of(Limit.sessionQuota("rps", 6, Duration.ofSeconds(5))),
                List.of(Limit.fixedWindow("rps", 5, Duration.ofSeconds(3))),
                List.of(Limit.perSecond("rps", 4).withSchedule(ScheduleEntry.scaled("* 10-11 * * *", utc, 3.0))),
                List.of(Limit.perSecond("rps", Limit.MAX_TOKENS)),
                List.of(Limit.perSecond("other", 2)),
                List.of(Limit.perMinute("other", 30)),
                List.of(Limit.perSecond("rps", 5), Limit.perMinute("rpm", 40)),
                List.of(Limit.perSecond("rps", 8), Limit.perSecond("tps", 30).soft()));
    }

    private void history(Random random, long seed) {
        List<List<Limit>> configurations = configurations();
        String entity = "user-" + seed;
        List<Lease[]> open = new ArrayList<>();
        configure(configurations.get(random.nextInt(configurations.size())));
        for (int step = 0; step < 250; step++) {
            String context = "seed " + seed + " step " + step;
            int action = random.nextInt(100);
            if (action < 6) {
                configure(configurations.get(random.nextInt(configurations.size())));
            } else if (action < 8) {
                DisabledMode mode = random.nextBoolean() ? DisabledMode.BYPASS : null;
                for (RateLimiter limiter : List.of(inPlace, general)) {
                    if (mode == null) {
                        limiter.admin().clearEntityDisabled(entity, RESOURCE);
                    } else {
                        limiter.admin().setEntityDisabled(entity, RESOURCE, mode);
                    }
                }
            } else if (action < 20) {
                clock.advance(Duration.ofMillis(random.nextInt(10) < 8 ? random.nextInt(400)
                        : random.nextInt(3_600_000)));
            } else if (action < 22) {
                clock.advance(Duration.ofMillis(-random.nextInt(2000)));
            } else if (action < 30 && !open.isEmpty()) {
                Lease[] pair = open.remove(random.nextInt(open.size()));
                correct(random, pair, context);
            } else {
                Map<String, Long> consume = consume(random);
                Lease[] pair = decide(entity, consume, random.nextBoolean(), context);
                if (pair != null && random.nextInt(4) == 0) {
                    open.add(pair);
                }
            }
            assertThat(inPlace.available(entity, RESOURCE)).as(context)
                    .isEqualTo(general.available(entity, RESOURCE));
            assertThat(inPlace.inspect(entity, RESOURCE)).as(context).isEqualTo(general.inspect(entity, RESOURCE));
        }
        inPlace.flushUsage();
        general.flushUsage();
        Instant from = Instant.parse("2026-01-01T00:00:00Z");
        Instant to = Instant.parse("2027-01-01T00:00:00Z");
        assertThat(inPlace.admin().usage(entity, UsageGranularity.HOUR, from, to)).as("usage, seed " + seed)
                .isEqualTo(general.admin().usage(entity, UsageGranularity.HOUR, from, to));
    }

    private static Map<String, Long> consume(Random random) {
        long amount = switch (random.nextInt(6)) {
            case 0 -> 0;
            case 1 -> 2 + random.nextInt(6);
            default -> 1;
        };
        return switch (random.nextInt(8)) {
            case 0 -> Map.of("rps", amount, "rpm", 1L);
            case 1, 2 -> Map.of("other", amount);
            default -> Map.of("rps", amount);
        };
    }

    private void configure(List<Limit> limits) {
        inPlace.admin().setResourceDefaults(RESOURCE, limits);
        general.admin().setResourceDefaults(RESOURCE, limits);
    }

    /** One call on both limiters, by acquire or tryAcquire; the same answer from both. Returns the two leases. */
    private Lease[] decide(String entity, Map<String, Long> consume, boolean attempt, String context) {
        Object a = outcome(inPlace, entity, consume, attempt);
        Object b = outcome(general, entity, consume, attempt);
        if (a instanceof Lease leaseA && b instanceof Lease leaseB) {
            assertThat(leaseA.statuses()).as(context).isEqualTo(leaseB.statuses());
            assertThat(leaseA.overdrawn()).as(context).isEqualTo(leaseB.overdrawn());
            assertThat(leaseA.bypassed()).as(context).isEqualTo(leaseB.bypassed());
            assertThat(leaseA.refusal()).as(context).isNull();
            return new Lease[] {leaseA, leaseB};
        }
        if (a instanceof Attempt refusedA && b instanceof Attempt refusedB) {
            assertThat(refusedA.admitted()).as(context).isFalse();
            assertThat(refusedB.admitted()).as(context).isFalse();
            assertThat(refusedA.statuses()).as(context).isEqualTo(refusedB.statuses());
            assertThat(refusedA.retryAfter()).as(context).isEqualTo(refusedB.retryAfter());
            assertThatThrownBy(refusedA::lease).as(context).isInstanceOf(RateLimitExceededException.class)
                    .hasMessage(message(refusedB)).isSameAs(refusedA.refusal());
            return null;
        }
        assertThat(a).as(context).isInstanceOf(RuntimeException.class);
        assertThat(b).as(context).isInstanceOf(a.getClass());
        assertThat(((RuntimeException) a).getMessage()).as(context).isEqualTo(((RuntimeException) b).getMessage());
        return null;
    }

    private static String message(Attempt refused) {
        try {
            refused.lease();
            throw new AssertionError("a refusal gave a lease");
        } catch (RateLimitExceededException e) {
            return e.getMessage();
        }
    }

    /** A lease, a refusal (an attempt not admitted, also when acquire raised it), or what else was raised. */
    private static Object outcome(RateLimiter limiter, String entity, Map<String, Long> consume, boolean attempt) {
        try {
            if (attempt) {
                return limiter.tryAcquire(entity, RESOURCE, consume);
            }
            return limiter.acquire(entity, RESOURCE, consume);
        } catch (RateLimitExceededException e) {
            return Refusal.of(e);
        } catch (RuntimeException e) {
            return e;
        }
    }

    /** The same correction of both leases: an adjustment, a rollback or a close, and then what follows. */
    private void correct(Random random, Lease[] pair, String context) {
        int what = random.nextInt(4);
        long amount = random.nextInt(9) - 4;
        List<Object> outcomes = new ArrayList<>();
        for (Lease lease : pair) {
            try {
                switch (what) {
                    case 0 -> lease.adjust("rps", amount);
                    case 1 -> lease.rollback();
                    case 2 -> {
                        lease.close();
                        lease.rollback();
                    }
                    default -> {
                        lease.adjust("rps", amount);
                        lease.close();
                        lease.close();
                        lease.adjust("rps", 1);
                    }
                }
                outcomes.add("done");
            } catch (RuntimeException e) {
                outcomes.add(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        assertThat(outcomes.get(0)).as(context).isEqualTo(outcomes.get(1));
    }
}
