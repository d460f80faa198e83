package dev.zaelimiter;

import dev.zaelimiter.internal.schedule.CronPattern;
import dev.zaelimiter.testing.MutableClock;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Quotas never hand out more than their allowance per period, checked on the clock against a model.
 *
 * <p>For a calendar quota, the periods are cut by reset edges that this class finds on its own, by walking local
 * wall-clock minutes: an edge is a local minute that matches while the one before it does not, and it happens at
 * the first real instant of that minute, or where the daylight-saving gap it falls in ends. Within a period the
 * model's balance is the allowance minus what was admitted in that period, so every request is admitted exactly
 * when it fits, and a refused one waits exactly until the next edge. The same for a session quota, whose period
 * starts at each caller's first admitted request and lasts {@code resetAfter}.
 */
class QuotaProperties {

    static final String RESOURCE = "api";

    static final List<String> ZONES = List.of("UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe",
            "Asia/Kathmandu", "America/Santiago");

    /** Starts near daylight-saving changes of the zones above, month and year ends and a leap day. */
    static final List<String> STARTS = List.of(
            "2026-03-07T00:00:00Z",     // New York springs forward on 8 March
            "2026-10-31T00:00:00Z",     // and falls back on 1 November
            "2026-03-28T00:00:00Z",     // Berlin: 29 March
            "2026-10-24T00:00:00Z",     // and 25 October
            "2026-04-04T00:00:00Z",     // Lord Howe (half-hour change) and Santiago: 5 April
            "2026-10-03T00:00:00Z",     // Lord Howe: 4 October
            "2026-09-05T00:00:00Z",     // Santiago: 6 September
            "2028-02-27T00:00:00Z",     // 29 February 2028
            "2026-12-30T00:00:00Z",     // 31 December to 1 January
            "2026-06-14T00:00:00Z");    // nothing special

    /** One step of a scenario: move the clock, then ask for {@code rawAmount % (allowance + 1)} tokens. */
    record Step(int entity, long advanceMillis, int jump, int rawAmount) {
    }

    /** {@code jump} values: move to just before, onto or just after the next boundary instead of advancing. */
    static final int NO_JUMP = Integer.MIN_VALUE;

    // ---- generators

    @Provide
    Arbitrary<String> resetCrons() {
        Arbitrary<Integer> minute = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(0)),
                Tuple.of(2, Arbitraries.of(15, 30, 45)),
                Tuple.of(1, Arbitraries.integers().between(0, 59)));
        Arbitrary<Integer> hour = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.of(0, 1, 2, 3)),
                Tuple.of(2, Arbitraries.integers().between(0, 23)));
        Arbitrary<Integer> step = Arbitraries.of(2, 3, 4, 5, 6, 8, 12);
        return Combinators.combine(Arbitraries.integers().between(0, 5), minute, hour, step).as((kind, m, h, k) ->
                switch (kind) {
                    case 0 -> m + " * * * *";                                 // hourly
                    case 1 -> m + " */" + k + " * * *";                       // every k hours
                    case 2 -> m + " " + h + " * * *";                         // daily
                    case 3 -> m + " " + h + "," + (h + 12) % 24 + " * * *";   // twice a day
                    case 4 -> m + " " + h + " * * MON-FRI";                   // working days
                    default -> "* " + h + " * * *";                           // the start of hour h
                });
    }

    @Provide
    Arbitrary<ZoneId> zones() {
        return Arbitraries.of(ZONES).map(ZoneId::of);
    }

    @Provide
    Arbitrary<Instant> starts() {
        return Combinators.combine(Arbitraries.of(STARTS), Arbitraries.longs().between(0, 72L * 3_600_000))
                .as((start, offset) -> Instant.parse(start).plusMillis(offset));
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Long> advance = Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just(0L)),
                Tuple.of(3, Arbitraries.longs().between(1, 120_000)),
                Tuple.of(4, Arbitraries.longs().between(60_000, 3 * 3_600_000L)),
                Tuple.of(2, Arbitraries.longs().between(3 * 3_600_000L, 30 * 3_600_000L)));
        Arbitrary<Integer> jump = Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.just(NO_JUMP)),
                Tuple.of(1, Arbitraries.of(-1, 0, 1)));
        return Combinators.combine(Arbitraries.integers().between(0, 1), advance, jump,
                        Arbitraries.integers().between(0, 10_000))
                .as(Step::new).list().ofMinSize(1).ofMaxSize(40);
    }

    @Provide
    Arbitrary<Duration> sessionLengths() {
        return Arbitraries.frequencyOf(
                Tuple.of(1, Arbitraries.longs().between(1, 5_000).map(Duration::ofMillis)),
                Tuple.of(3, Arbitraries.longs().between(1, 600).map(Duration::ofMinutes)),
                Tuple.of(1, Arbitraries.longs().between(1, 48).map(Duration::ofHours)));
    }

    // ---- the oracle: reset edges found minute by minute in local time

    /**
     * The reset edges of one pattern in one zone, as strictly increasing instants, found by walking local minutes
     * and extended on demand.
     */
    static final class Edges {

        private final CronPattern pattern;
        private final ZoneId zone;
        private final ZoneRules rules;
        private final List<Instant> edges = new ArrayList<>();
        private LocalDateTime minute;
        private boolean before;

        Edges(CronPattern pattern, ZoneId zone, Instant from) {
            this.pattern = pattern;
            this.zone = zone;
            this.rules = zone.getRules();
            this.minute = LocalDateTime.ofInstant(from, zone).truncatedTo(ChronoUnit.MINUTES).minusDays(1);
            this.before = pattern.matches(minute.minusMinutes(1));
        }

        /** Scans until every edge up to four days after {@code t} is known (the longest gap here is a weekend). */
        private void cover(Instant t) {
            LocalDateTime end = LocalDateTime.ofInstant(t, zone).plusDays(4);
            for (; minute.isBefore(end); minute = minute.plusMinutes(1)) {
                boolean matches = pattern.matches(minute);
                if (matches && !before) {
                    Instant at = rules.getValidOffsets(minute).isEmpty()
                            ? rules.getTransition(minute).getInstant()                        // in a gap
                            : minute.atZone(zone).withEarlierOffsetAtOverlap().toInstant();    // first occurrence
                    if (edges.isEmpty() || at.isAfter(edges.get(edges.size() - 1))) {
                        edges.add(at);
                    }
                }
                before = matches;
            }
        }

        /** How many edges are at or before {@code t}: the index of the period {@code t} lies in. */
        int period(Instant t) {
            cover(t);
            int i = Collections.binarySearch(edges, t);
            return i >= 0 ? i + 1 : -i - 1;
        }

        /** The first edge strictly after {@code t}. */
        Instant next(Instant t) {
            return edges.get(period(t));
        }

        /** The first {@code n} edges. */
        List<Instant> first(int n, Instant t) {
            cover(t);
            return List.copyOf(edges.subList(0, n));
        }
    }

    // ---- calendar quotas

    @Property(tries = 250)
    void aCalendarQuotaAdmitsExactlyItsAllowancePerPeriod(@ForAll @IntRange(min = 1, max = 50) int allowance,
            @ForAll("resetCrons") String cron, @ForAll("zones") ZoneId zone, @ForAll("starts") Instant start,
            @ForAll("steps") List<Step> steps) {
        Edges edges = new Edges(CronPattern.parse("cron", cron), zone, start);

        MutableClock clock = new MutableClock(start);
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults(RESOURCE, List.of(Limit.quota("q", allowance, cron, zone)));

        int currentPeriod = -1;
        long used = 0;
        Map<Integer, Long> admittedPerPeriod = new HashMap<>();
        List<String> trace = new ArrayList<>();
        for (Step step : steps) {
            Instant now = clock.instant();
            if (step.jump() != NO_JUMP) {
                Instant target = edges.next(now).plusMillis(step.jump());
                clock.set(target.isAfter(now) ? target : now.plusMillis(step.advanceMillis()));
            } else {
                clock.advance(Duration.ofMillis(step.advanceMillis()));
            }
            now = clock.instant();
            int period = edges.period(now);
            if (period != currentPeriod) {
                currentPeriod = period;
                used = 0;
            }
            long amount = step.rawAmount() % (allowance + 1);
            boolean fits = used + amount <= allowance;
            trace.add(now + " (" + LocalDateTime.ofInstant(now, zone) + " local) take " + amount + ", used " + used
                    + " in period " + period);
            String context = "quota " + allowance + " '" + cron + "' " + zone + "\n  " + String.join("\n  ", trace);

            boolean admitted;
            try {
                limiter.acquire("user-1", RESOURCE, Map.of("q", amount)).close();
                admitted = true;
            } catch (RateLimitExceededException e) {
                admitted = false;
                assertThat(e.retryAfter()).as("retry-after, the time to the next edge; %s", context)
                        .isEqualTo(Duration.between(now, edges.next(now)));
            }
            assertThat(admitted).as("admitted; %s", context).isEqualTo(fits);
            if (admitted) {
                used += amount;
                admittedPerPeriod.merge(period, amount, Long::sum);
            }
            assertThat(limiter.available("user-1", RESOURCE)).as("available; %s", context)
                    .containsEntry("q", allowance - used);
        }
        assertThat(admittedPerPeriod.values()).allSatisfy(sum -> assertThat(sum).isLessThanOrEqualTo(allowance));
    }

    // ---- session quotas

    @Property(tries = 250)
    void aSessionQuotaAdmitsExactlyItsAllowancePerSessionOfEachCaller(
            @ForAll @IntRange(min = 1, max = 50) int allowance, @ForAll("sessionLengths") Duration resetAfter,
            @ForAll("starts") Instant start, @ForAll("steps") List<Step> steps) {
        MutableClock clock = new MutableClock(start);
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults(RESOURCE, List.of(Limit.sessionQuota("s", allowance, resetAfter)));
        long length = resetAfter.toMillis();

        String[] callers = {"alice", "bob"};
        long[] balance = {allowance, allowance};
        Instant[] sessionStart = {null, null};
        List<Map<Instant, Long>> admittedPerSession = List.of(new HashMap<>(), new HashMap<>());
        List<String> trace = new ArrayList<>();
        for (Step step : steps) {
            int who = step.entity();
            Instant now = clock.instant();
            if (step.jump() != NO_JUMP && sessionStart[who] != null) {
                Instant target = sessionStart[who].plusMillis(length + step.jump());
                clock.set(target.isAfter(now) ? target : now.plusMillis(step.advanceMillis()));
            } else {
                clock.advance(Duration.ofMillis(step.advanceMillis()));
            }
            now = clock.instant();
            for (int i = 0; i < callers.length; i++) {
                if (sessionStart[i] != null && !now.isBefore(sessionStart[i].plusMillis(length))) {
                    sessionStart[i] = null;
                    balance[i] = allowance;
                }
            }
            long amount = step.rawAmount() % (allowance + 1);
            boolean fits = amount <= balance[who];
            trace.add(now + " " + callers[who] + " takes " + amount + " of " + balance[who] + ", session from "
                    + sessionStart[who]);
            String context = "session quota " + allowance + " per " + resetAfter + "\n  " + String.join("\n  ", trace);

            boolean admitted;
            try {
                limiter.acquire(callers[who], RESOURCE, Map.of("s", amount)).close();
                admitted = true;
            } catch (RateLimitExceededException e) {
                admitted = false;
                assertThat(sessionStart[who]).as("a refusal happens inside a session; %s", context).isNotNull();
                assertThat(e.retryAfter()).as("retry-after, the end of the session; %s", context)
                        .isEqualTo(Duration.between(now, sessionStart[who].plusMillis(length)));
            }
            assertThat(admitted).as("admitted; %s", context).isEqualTo(fits);
            if (admitted) {
                balance[who] -= amount;
                if (sessionStart[who] == null && amount > 0) {
                    sessionStart[who] = now;
                }
                if (amount > 0) {
                    admittedPerSession.get(who).merge(sessionStart[who], amount, Long::sum);
                }
            }
            for (int i = 0; i < callers.length; i++) {
                assertThat(limiter.available(callers[i], RESOURCE)).as("available to %s; %s", callers[i], context)
                        .containsEntry("s", balance[i]);
            }
        }
        for (Map<Instant, Long> sessions : admittedPerSession) {
            assertThat(sessions.values()).allSatisfy(sum -> assertThat(sum).isLessThanOrEqualTo(allowance));
        }
    }

    /** The oracle itself, on cases worked out by hand, so that the properties do not rest on a wrong model. */
    @Property(tries = 1)
    void theEdgeOracleFollowsTheRulesOfTheIssue() {
        ZoneId newYork = ZoneId.of("America/New_York");
        // the scan starts a day before the instant given: 6 March 07:00 EST here
        Instant spring = Instant.parse("2026-03-07T12:00:00Z");
        // 02:30 does not exist on 8 March: the edge is where the gap ends, 03:00 EDT (07:00Z), once
        assertThat(new Edges(CronPattern.parse("c", "30 2 * * *"), newYork, spring).first(3, spring))
                .containsExactly(Instant.parse("2026-03-07T07:30:00Z"), Instant.parse("2026-03-08T07:00:00Z"),
                        Instant.parse("2026-03-09T06:30:00Z"));
        // 01:30 happens twice on 1 November: the edge is the first one, 01:30 EDT (05:30Z)
        Instant fall = Instant.parse("2026-10-31T12:00:00Z");
        assertThat(new Edges(CronPattern.parse("c", "30 1 * * *"), newYork, fall).first(3, fall))
                .containsExactly(Instant.parse("2026-10-31T05:30:00Z"), Instant.parse("2026-11-01T05:30:00Z"),
                        Instant.parse("2026-11-02T06:30:00Z"));
        // several edges in one gap are one edge
        assertThat(new Edges(CronPattern.parse("c", "*/20 * * * *"), newYork, spring)
                .next(Instant.parse("2026-03-08T06:40:00Z"))).isEqualTo(Instant.parse("2026-03-08T07:00:00Z"));
        assertThat(new Edges(CronPattern.parse("c", "*/20 * * * *"), newYork, spring)
                .next(Instant.parse("2026-03-08T07:00:00Z"))).isEqualTo(Instant.parse("2026-03-08T07:20:00Z"));

        Edges midnight = new Edges(CronPattern.parse("c", "0 0 * * *"), ZoneOffset.UTC, spring);
        assertThat(midnight.period(Instant.parse("2026-03-07T23:59:59.999Z"))).isEqualTo(1);
        assertThat(midnight.period(Instant.parse("2026-03-08T00:00:00Z"))).isEqualTo(2);
        assertThat(midnight.next(Instant.parse("2026-03-08T00:00:00Z")))
                .isEqualTo(Instant.parse("2026-03-09T00:00:00Z"));
    }
}
