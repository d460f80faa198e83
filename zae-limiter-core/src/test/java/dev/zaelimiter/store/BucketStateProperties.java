package dev.zaelimiter.store;

import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.ExactBucketReference;
import static dev.zaelimiter.internal.algorithm.ExactBucketReference.big;
import static org.assertj.core.api.Assertions.assertThat;

import dev.zaelimiter.Limit;
import dev.zaelimiter.ScheduleEntry;

import java.math.BigInteger;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Random sequences of refills (with a clock that sometimes goes backwards), debits and adjustments, checked step by
 * step against a model in unbounded integers: balances follow the exact refill model, never exceed capacity after a
 * refill or an adjustment, and the consumption counters are the net sum of everything debited and adjusted.
 */
class BucketStateProperties {

    static final long NOW = 1_735_689_600_000L;

    /** Rates that are not whole milli-tokens per millisecond, one of them soft. */
    static final List<Limit> LIMITS = List.of(
            Limit.custom("a", 7, 7, Duration.ofSeconds(3)),
            Limit.custom("b", 50, 5, Duration.ofSeconds(2)).soft(),
            Limit.perDay("c", 1).withBurst(3));

    sealed interface Op permits Advance, Debit, Adjust, Check {
    }

    record Advance(long millis) implements Op {
    }

    record Debit(Map<String, Long> amounts, boolean countOnly) implements Op {
    }

    record Adjust(Map<String, Long> amounts, boolean countOnly) implements Op {
    }

    record Check(Map<String, Long> amounts) implements Op {
    }

    static Arbitrary<Map<String, Long>> amounts(long min, long max) {
        Arbitrary<Long> amount = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(min, max)),
                Tuple.of(1, Arbitraries.of(0L, min, max)));
        return Arbitraries.maps(Arbitraries.of("a", "b", "c", "unknown"), amount).ofMaxSize(4);
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Op> advance = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.longs().between(0, 5_000)),
                Tuple.of(1, Arbitraries.longs().between(-5_000, -1)),
                Tuple.of(1, Arbitraries.longs().between(0, 3 * 86_400_000L)))
                .map(Advance::new);
        Arbitrary<Op> debit = Combinators.combine(amounts(0, 30_000), Arbitraries.of(true, false)).as(Debit::new);
        Arbitrary<Op> adjust = Combinators.combine(amounts(-30_000, 30_000), Arbitraries.of(true, false))
                .as(Adjust::new);
        Arbitrary<Op> check = amounts(0, 60_000).map(Check::new);
        return Arbitraries.frequencyOf(
                Tuple.of(3, advance),
                Tuple.of(3, debit),
                Tuple.of(2, adjust),
                Tuple.of(2, check))
                .list().ofMaxSize(60);
    }

    @Property(tries = 500)
    void everyTransitionMatchesTheModel(@ForAll("operations") List<Op> ops) {
        BucketState state = BucketState.fresh(LIMITS, NOW);
        long clock = NOW;
        long modelLast = NOW;
        Map<String, BigInteger> balance = new HashMap<>();
        Map<String, BigInteger> consumed = new HashMap<>();
        for (Limit limit : LIMITS) {
            balance.put(limit.name(), big(Limits.capacityMilli(limit)));
            consumed.put(limit.name(), BigInteger.ZERO);
        }

        for (Op op : ops) {
            if (op instanceof Advance advance) {
                clock += advance.millis();
                state = state.refilled(LIMITS, clock);
                for (Limit limit : LIMITS) {
                    balance.put(limit.name(), ExactBucketReference.refill(
                            balance.get(limit.name()).longValueExact(), Limits.capacityMilli(limit),
                            Limits.refillAmountMilli(limit), Limits.refillPeriodMillis(limit), modelLast, clock));
                }
                modelLast = Math.max(modelLast, clock);
            } else if (op instanceof Debit debit) {
                state = state.debited(LIMITS, debit.amounts(), debit.countOnly());
                apply(debit.amounts(), debit.countOnly(), balance, consumed, false);
            } else if (op instanceof Adjust adjust) {
                state = state.adjusted(LIMITS, adjust.amounts(), adjust.countOnly());
                apply(adjust.amounts(), adjust.countOnly(), balance, consumed, true);
            } else if (op instanceof Check check) {
                boolean expected = true;
                for (Limit limit : LIMITS) {
                    long asked = check.amounts().getOrDefault(limit.name(), 0L);
                    if (!limit.isSoft() && asked > 0 && balance.get(limit.name()).compareTo(big(asked)) < 0) {
                        expected = false;
                    }
                }
                assertThat(state.admits(LIMITS, check.amounts())).as("admits %s in %s", check.amounts(), state)
                        .isEqualTo(expected);
            }

            assertThat(state.lastRefillMillis()).isEqualTo(modelLast);
            assertThat(state.limits()).containsOnlyKeys("a", "b", "c");
            for (Limit limit : LIMITS) {
                LimitState s = state.limits().get(limit.name());
                assertThat(big(s.balanceMilli())).as("balance of %s after %s", limit.name(), op)
                        .isEqualTo(balance.get(limit.name()));
                assertThat(big(s.consumedMilli())).as("consumed of %s after %s", limit.name(), op)
                        .isEqualTo(consumed.get(limit.name()));
                if (!(op instanceof Debit)) {
                    assertThat(s.balanceMilli()).isLessThanOrEqualTo(Limits.capacityMilli(limit));
                }
            }
        }
    }

    private static void apply(Map<String, Long> amounts, boolean countOnly, Map<String, BigInteger> balance,
                              Map<String, BigInteger> consumed, boolean capAtCapacity) {
        for (Limit limit : LIMITS) {
            Long amount = amounts.get(limit.name());
            if (amount == null) {
                continue;
            }
            consumed.merge(limit.name(), big(amount), BigInteger::add);
            if (!countOnly) {
                BigInteger b = balance.get(limit.name()).subtract(big(amount));
                balance.put(limit.name(), capAtCapacity ? b.min(big(Limits.capacityMilli(limit))) : b);
            }
        }
    }

    @Property(tries = 300)
    void refillNeverChangesConsumptionAndADebitedRefillCommutes(
            @ForAll("operations") List<Op> ops,
            @ForAll @LongRange(min = 0, max = 100_000) long later) {
        // build some arbitrary state first
        BucketState state = BucketState.fresh(LIMITS, NOW);
        long clock = NOW;
        for (Op op : ops) {
            if (op instanceof Advance advance) {
                clock += advance.millis();
                state = state.refilled(LIMITS, clock);
            } else if (op instanceof Debit debit) {
                state = state.debited(LIMITS, debit.amounts(), debit.countOnly());
            } else if (op instanceof Adjust adjust) {
                state = state.adjusted(LIMITS, adjust.amounts(), adjust.countOnly());
            }
        }
        BucketState refilled = state.refilled(LIMITS, state.lastRefillMillis() + later);
        for (Limit limit : LIMITS) {
            assertThat(refilled.limits().get(limit.name()).consumedMilli())
                    .isEqualTo(state.limits().get(limit.name()).consumedMilli());
            assertThat(refilled.balanceMilli(limit.name()))
                    .isGreaterThanOrEqualTo(Math.min(state.balanceMilli(limit.name()), Limits.capacityMilli(limit)))
                    .isLessThanOrEqualTo(Limits.capacityMilli(limit));
        }
        // a countOnly debit changes no balance: refilling before or after it gives the same balances
        Map<String, Long> taken = Map.of("a", 1_234L, "b", 99_999L);
        BucketState debitThenRefill = state.debited(LIMITS, taken, true).refilled(LIMITS, state.lastRefillMillis() + later);
        BucketState refillThenDebit = refilled.debited(LIMITS, taken, true);
        assertThat(debitThenRefill).isEqualTo(refillThenDebit);
    }

    // ---- retry-after across schedule windows

    /** A window of whole minutes in every hour, covering at most 51 of them, that lowers or raises the limit. */
    static Arbitrary<ScheduleEntry> windows(boolean drips) {
        Arbitrary<String> cron = Combinators.combine(Arbitraries.integers().between(0, 59),
                Arbitraries.integers().between(0, 50)).as((from, length) ->
                        from + "-" + Math.min(59, from + length) + " * * * *");
        Arbitrary<ScheduleEntry> scaled = Combinators.combine(cron, Arbitraries.of(0.1, 0.25, 0.5, 2.0, 3.0))
                .as(ScheduleEntry::scaled);
        Arbitrary<ScheduleEntry> capacity = Combinators.combine(cron, Arbitraries.longs().between(1, 20))
                .as((c, cap) -> ScheduleEntry.absolute(c, ZoneOffset.UTC, cap));
        Arbitrary<ScheduleEntry> refill = Combinators.combine(cron, Arbitraries.longs().between(1, 20),
                Arbitraries.longs().between(1, 5), Arbitraries.longs().between(1, 90))
                .as((c, cap, amount, seconds) -> ScheduleEntry.absolute(c, ZoneOffset.UTC, cap, amount,
                        Duration.ofSeconds(seconds)));
        return drips ? Arbitraries.oneOf(scaled, capacity, refill) : Arbitraries.oneOf(scaled, capacity);
    }

    @Provide
    Arbitrary<Limit> scheduledLimits() {
        Arbitrary<Limit> drip = Combinators.combine(Arbitraries.longs().between(1, 20),
                Arbitraries.longs().between(1, 5), Arbitraries.longs().between(1, 120),
                windows(true).list().ofMinSize(1).ofMaxSize(3))
                .as((cap, amount, seconds, entries) -> Limit.custom("x", cap, amount, Duration.ofSeconds(seconds))
                        .withSchedule(new ArrayList<>(entries)));
        Arbitrary<Limit> quota = Combinators.combine(Arbitraries.longs().between(1, 20),
                Arbitraries.integers().between(0, 59), windows(false).list().ofMinSize(1).ofMaxSize(3))
                .as((cap, minute, entries) -> Limit.quota("x", cap, minute + " * * * *", ZoneOffset.UTC)
                        .withSchedule(new ArrayList<>(entries)));
        return Arbitraries.oneOf(drip, quota);
    }

    /**
     * From any stored state, at any later instant, for any request the limit can hold in some minute: the
     * retry-after is the first instant at which the stored state, refilled to it, covers the request (checked
     * exactly by {@link RetryAfterOracle}).
     */
    @Property(tries = 400)
    void theRetryAfterIsTheFirstInstantAtWhichTheRequestPasses(
            @ForAll("scheduledLimits") Limit limit,
            @ForAll @DoubleRange(min = -1, max = 1) double balanceShare,
            @ForAll @DoubleRange(min = 0, max = 1, maxIncluded = true) double needShare,
            @ForAll @LongRange(min = 0, max = 3_600_000) long storedAfter,
            @ForAll @LongRange(min = 0, max = 7_200_000) long later) {
        long capacity = Limits.capacityMilli(limit);
        long last = NOW + storedAfter;
        BucketState stored = new BucketState(last, Map.of("x", new LimitState((long) (balanceShare * capacity), 0)));
        // windows repeat every hour; a request above what some minute of the hour allows never passes (an entry
        // can be shadowed by an earlier one, so this can be less than maxCapacityMilli)
        long reachable = 0;
        for (int minute = 0; minute < 60; minute++) {
            reachable = Math.max(reachable, Limits.parametersAt(limit, NOW + minute * 60_000L).capacityMilli());
        }
        long need = Math.max(1, (long) Math.ceil(needShare * reachable));
        RetryAfterOracle.bounded.clear();

        RetryAfterOracle.assertExact(stored, limit, last + later, need, 0);

        assertThat(RetryAfterOracle.bounded).as("admitted within the walk").isEmpty();
    }
}
