package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Attempt;
import dev.zaelimiter.Availability;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.LimitView;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ScheduleEntry;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Usage;
import dev.zaelimiter.UsageGranularity;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.fail;

/**
 * Seeded random histories run on both stores, each in its own {@link RateLimiter} on one {@link MutableClock}, and
 * compared call by call: decisions (admitted or refused, or the exception's type), statuses, retry-afters,
 * {@code available}, {@code checkAvailability}, {@code inspect} (consumption counters included) and, at the end,
 * the usage history.
 *
 * <p>A history changes the configuration at random points, by this process or by another one (a second limiter on
 * the same table; for memory, on the same store), with every kind of limit; acquires one or several limits with
 * amounts from 0 to far above capacity; adjusts and rolls back leases (debts and refunds); moves the clock from a
 * millisecond to a year forwards, and back; sweeps (the in-memory store's {@code evictIdle}, the DynamoDB store's
 * reservation sweep); and closes and reopens the limiter (for DynamoDB, the store too).
 *
 * <p>The comparison allows exactly the differences the docs name, with their bounds:
 * <ul>
 *   <li>A change made by the other process reaches this one's DynamoDB configuration cache within {@code stampTtl}
 *       ({@code dynamodb.md}, "How a configuration change propagates"): right after such a change the history
 *       moves the clock to {@code stampTtl} past the latest instant it showed.</li>
 *   <li>A limit with local reservations ({@code hot-buckets.md}): a call served from a pool reports as available
 *       what the process can still hand out (at least 0, never more than the bucket has); held and handed-out
 *       tokens are unavailable to others, so {@code available}, {@code checkAvailability} and {@code inspect} may
 *       report up to half the capacity less (a quarter held, a quarter handed out and not yet retired), never
 *       more; a call may be refused that the exact bucket admits (the option under-admits, never over-admits), and
 *       then the in-memory call is rolled back so that both continue from the same decision (so may any call in
 *       the 20 ms after the bucket came up short, when the process refuses locally); retry-afters of such
 *       refusals are not compared (local refusals are paced). Usage then counts admitted and refused calls
 *       differently, so only consumed tokens are compared.</li>
 *   <li>A lease taken before the limiter and its DynamoDB store were closed and reopened: settling it raises
 *       {@code StoreUnavailableException} on DynamoDB (issue 23, item 10; {@code dynamodb.md}, "After close()");
 *       the in-memory store is the same store after a reopen, so the step runs on DynamoDB only when DynamoDB
 *       raises that (closing it, which frees no slot on the closed store, never).</li>
 *   <li>Writes only DynamoDB makes, each a write of the bucket at its instant ({@code dynamodb.md}, "Both stores
 *       on the same histories"): an idle pool's return, within {@value #GIVEN_BACK_MILLIS} ms of its last call
 *       (made then, before a longer move of the clock), and the give-back of a refused cascade (the in-memory
 *       bucket is written the same).</li>
 *   <li>A bucket whose life ended, which the in-memory sweep forgets and DynamoDB's TTL may delete: at a sweep the
 *       DynamoDB item of each bucket the in-memory store forgot is deleted, once DynamoDB reads it full.</li>
 * </ul>
 *
 * <p>{@value #HISTORIES} sets how many histories run (CI default {@value #CI_HISTORIES}), {@value #FIRST_SEED} the
 * first seed, {@value #EXTENDED} how many extended histories (cascades and concurrency limits, seeds from
 * {@value #EXTENDED_BASE}) run besides (CI default {@value #CI_EXTENDED}), {@value #BUDGET} the seconds after which
 * no further history starts (CI default {@value #CI_BUDGET_SECONDS}, 0 for none; the run says how many it left out),
 * {@value #SEED} replays seeds (a comma-separated list), {@value #THREADS} how many histories run at once (2); the
 * first {@value #SHRINK} failing histories (1) are printed with their seeds, shrunk by dropping steps while they
 * still fail the same way. The run fails with the first mismatching seed and lists every distinct kind
 * of mismatch it found.
 *
 * <p>Every build runs the defaults (2,500 plain and 500 extended histories, about three minutes on a quiet
 * machine; on a busy one the time budget stops it early, plain and extended alike since they start interleaved, and
 * the run says how many it left out). To run more, or one seed: {@code mvn -pl zae-limiter-dynamodb test
 * -Dtest=DifferentialHistoryTest -Dzae.diffhist.histories=4000 -Dzae.diffhist.extended=600
 * -Dzae.diffhist.budgetSeconds=0}.
 */
@Timeout(1800)
class DifferentialHistoryTest {

    static final String HISTORIES = "zae.diffhist.histories";
    static final String FIRST_SEED = "zae.diffhist.firstSeed";
    static final String SEED = "zae.diffhist.seed";
    static final String SHRINK = "zae.diffhist.shrink";
    static final String THREADS = "zae.diffhist.threads";
    static final int CI_HISTORIES = 2500;
    /** How many histories of {@value #EXTENDED_BASE} and on run besides (CI default {@value #CI_EXTENDED}). */
    static final String EXTENDED = "zae.diffhist.extended";
    static final int CI_EXTENDED = 500;
    /** The first seed of the extended histories (cascades, concurrency limits): see {@link #history}. */
    static final long EXTENDED_BASE = 1_000_000;
    /** Seconds after which no further history starts (CI default {@value #CI_BUDGET_SECONDS}); 0: no budget. */
    static final String BUDGET = "zae.diffhist.budgetSeconds";
    static final int CI_BUDGET_SECONDS = 300;

    static final String RESOURCE = "r1";
    static final List<String> ENTITIES = List.of("e1", "e2");
    static final List<String> NAMES = List.of("a", "b", "c");
    static final Duration STAMP_TTL = DynamoDbStore.MIN_STAMP_TTL;
    /** How long a process refuses locally after the bucket came up short ({@code hot-buckets.md}). */
    static final long LOCAL_REFUSALS_MILLIS = 20;
    static final long STEP_BACK_LIMIT = Duration.ofMinutes(10).toMillis();
    /** How soon the background sweep gives back an idle pool's tokens: idle for 200 ms, swept every 100 ms. */
    static final long GIVEN_BACK_MILLIS = 300;

    // ---- steps

    sealed interface Step permits Configure, Acquire, Check, Available, Inspect, Adjust, Rollback, Release, Advance,
            Sweep, Reopen, Family {
    }

    /** Makes {@code child} an entity under {@code parent} (created first), cascading its calls when asked. */
    record Family(String child, String parent, boolean cascade) implements Step {
        @Override
        public String toString() {
            return child + " under " + parent + (cascade ? ", cascading" : "");
        }
    }

    /** Limits of the resource ({@code entity} null) or of one entity on it; {@code limits} null deletes them. */
    record Configure(boolean otherProcess, String entity, List<Limit> limits) implements Step {
        @Override
        public String toString() {
            return (limits == null ? "delete " : "set ") + (entity == null ? "resource defaults" : entity + "'s limits")
                    + (otherProcess ? " by the other process (then clock to latest + stampTtl)" : "")
                    + (limits == null ? "" : ": " + limits.stream().map(Object::toString)
                    .map(s -> s.substring("Limit[".length(), s.length() - 1)).collect(Collectors.joining("; ")));
        }
    }

    record Acquire(String entity, Map<String, Long> amounts) implements Step {
        @Override
        public String toString() {
            return "acquire " + entity + " " + amounts;
        }
    }

    record Check(String entity, Map<String, Long> amounts) implements Step {
        @Override
        public String toString() {
            return "checkAvailability " + entity + " " + amounts;
        }
    }

    record Available(String entity) implements Step {
        @Override
        public String toString() {
            return "available " + entity;
        }
    }

    record Inspect(String entity) implements Step {
        @Override
        public String toString() {
            return "inspect " + entity;
        }
    }

    /** {@code lease} picks one of the leases admitted so far (modulo their number). */
    record Adjust(int lease, String limit, long amount) implements Step {
        @Override
        public String toString() {
            return "lease#" + lease + ".adjust(" + limit + ", " + amount + ")";
        }
    }

    record Rollback(int lease) implements Step {
        @Override
        public String toString() {
            return "lease#" + lease + ".rollback()";
        }
    }

    record Release(int lease) implements Step {
        @Override
        public String toString() {
            return "lease#" + lease + ".close()";
        }
    }

    record Advance(long millis) implements Step {
        @Override
        public String toString() {
            return "clock " + (millis < 0 ? "-" : "+") + Duration.ofMillis(Math.abs(millis)).toString().substring(2)
                    .toLowerCase();
        }
    }

    record Sweep() implements Step {
        @Override
        public String toString() {
            return "sweep (memory: evictIdle; DynamoDB: reservation sweep)";
        }
    }

    record Reopen() implements Step {
        @Override
        public String toString() {
            return "close and reopen this process's limiter";
        }
    }

    // ---- generation

    /**
     * The history of {@code seed}; from {@value #EXTENDED_BASE} on, the same history also made richer, from a random
     * stream of its own (so that the histories below keep their seeds): {@code e2} under {@code e1} (cascading, in
     * three histories of four) and, in one configuration of three, one limit turned into a concurrency limit.
     */
    static List<Step> history(long seed) {
        List<Step> steps = plainHistory(seed);
        if (seed < EXTENDED_BASE) {
            return steps;
        }
        Random extra = new Random(~seed);
        List<Step> richer = new ArrayList<>();
        richer.add(new Family("e2", "e1", extra.nextInt(4) != 0));
        for (Step step : steps) {
            if (step instanceof Configure c && c.limits() != null && extra.nextInt(3) == 0) {
                List<Limit> limits = new ArrayList<>(c.limits());
                int at = extra.nextInt(limits.size());
                Limit limit = Limit.concurrency(limits.get(at).name(), pick(extra, 1, 2, 5),
                        Duration.ofMillis(pick(extra, 1000, 60_000, 3_600_000)));
                limits.set(at, extra.nextInt(5) == 0 ? tryTo(limit, Limit::soft) : limit);
                richer.add(new Configure(c.otherProcess(), c.entity(), limits));
            } else {
                richer.add(step);
            }
        }
        return richer;
    }

    static List<Step> plainHistory(long seed) {
        Random random = new Random(seed);
        List<Step> steps = new ArrayList<>();
        steps.add(new Configure(false, null, limits(random)));
        int length = 8 + random.nextInt(33);
        for (int i = 0; i < length; i++) {
            String entity = ENTITIES.get(random.nextInt(ENTITIES.size()));
            int kind = random.nextInt(100);
            if (kind < 10) {
                boolean delete = random.nextInt(6) == 0;
                steps.add(new Configure(random.nextInt(3) == 0, random.nextBoolean() ? null : entity,
                        delete ? null : limits(random)));
            } else if (kind < 38) {
                steps.add(new Acquire(entity, amounts(random)));
            } else if (kind < 42) {
                steps.add(new Check(entity, amounts(random)));
            } else if (kind < 48) {
                steps.add(new Available(entity));
            } else if (kind < 52) {
                steps.add(new Inspect(entity));
            } else if (kind < 62) {
                steps.add(new Adjust(random.nextInt(8), NAMES.get(random.nextInt(2)), adjustment(random)));
            } else if (kind < 66) {
                steps.add(new Rollback(random.nextInt(8)));
            } else if (kind < 70) {
                steps.add(new Release(random.nextInt(8)));
            } else if (kind < 92) {
                steps.add(new Advance(jump(random)));
            } else if (kind < 96) {
                steps.add(new Sweep());
            } else {
                steps.add(new Reopen());
            }
        }
        for (String entity : ENTITIES) {
            steps.add(new Inspect(entity));
        }
        return steps;
    }

    static List<Limit> limits(Random random) {
        int count = 1 + random.nextInt(2);
        List<String> names = new ArrayList<>(NAMES.subList(0, random.nextInt(4) == 0 ? 3 : 2));
        List<Limit> limits = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            limits.add(limit(random, names.remove(random.nextInt(names.size()))));
        }
        return limits;
    }

    static Limit limit(Random random, String name) {
        long size = pick(random, 1, 5, 10, 56, 100, 1000, 10_000);
        Limit limit = switch (random.nextInt(9)) {
            case 0 -> Limit.perSecond(name, size);
            case 1 -> Limit.perMinute(name, size);
            case 2 -> Limit.perHour(name, size);
            case 3 -> Limit.perDay(name, size);
            case 4 -> Limit.custom(name, size, Math.max(1, size / pick(random, 1, 2, 14, 100)),
                    Duration.ofMillis(pick(random, 1000, 2000, 60_000, 3_600_000)));
            case 5 -> Limit.quota(name, size, random.nextBoolean() ? "0 0 * * *" : "*/15 * * * *", ZoneOffset.UTC);
            case 6 -> Limit.sessionQuota(name, size, Duration.ofSeconds(pick(random, 66, 600, 3600)));
            case 7 -> Limit.fixedWindow(name, size, Duration.ofMillis(pick(random, 1000, 60_000, 3_600_000)));
            default -> Limit.custom(name, size, Math.max(1, size / 14), Duration.ofHours(1))
                    .withSchedule(schedule(random, size));
        };
        if (random.nextInt(5) == 0) {
            limit = tryTo(limit, l -> l.withBurst(size * pick(random, 2, 3, 10)));
        }
        if (random.nextInt(6) == 0) {
            limit = tryTo(limit, l -> l.withSchedule(schedule(random, size)));
        }
        if (random.nextInt(5) == 0) {
            limit = tryTo(limit, Limit::soft);
        }
        if (random.nextInt(3) == 0) {
            limit = tryTo(limit, Limit::withLocalReservations);
        }
        return limit;
    }

    static ScheduleEntry schedule(Random random, long size) {
        String cron = switch (random.nextInt(3)) {
            case 0 -> "* 15-23 * * *";
            case 1 -> "0-29 * * * *";
            default -> "* * * * 1-5";
        };
        return random.nextBoolean() ? ScheduleEntry.scaled(cron, ZoneOffset.UTC, random.nextBoolean() ? 0.5 : 3)
                : ScheduleEntry.absolute(cron, ZoneOffset.UTC, Math.max(1, size * pick(random, 1, 2, 5) / 3));
    }

    static Limit tryTo(Limit limit, java.util.function.UnaryOperator<Limit> change) {
        try {
            return change.apply(limit);
        } catch (ValidationException notForThisKind) {
            return limit;
        }
    }

    static Map<String, Long> amounts(Random random) {
        Map<String, Long> amounts = new TreeMap<>();
        int count = random.nextInt(5) == 0 ? 2 : 1;
        for (int i = 0; i < count; i++) {
            amounts.put(NAMES.get(random.nextInt(random.nextInt(8) == 0 ? 3 : 2)),
                    pick(random, 0, 1, 1, 1, 2, 3, 5, 10, 10, 40, 56, 99, 100, 700, 1000, 20_000, 1_000_000));
        }
        return amounts;
    }

    static long adjustment(Random random) {
        long size = pick(random, 1, 5, 20, 62, 100, 1000, 10_000, 10_000_000);
        return random.nextInt(3) == 0 ? size : -size;
    }

    static long jump(Random random) {
        int kind = random.nextInt(20);
        if (kind < 4) {
            return 1 + random.nextInt(999);
        } else if (kind < 9) {
            return 1000L * (1 + random.nextInt(59));
        } else if (kind < 12) {
            return 60_000L * (1 + random.nextInt(59));
        } else if (kind < 14) {
            return 3_600_000L * (1 + random.nextInt(23));
        } else if (kind < 15) {
            return 86_400_000L * (1 + random.nextInt(30));
        } else if (kind < 16) {
            return 365 * 86_400_000L;
        }
        return -(1 + (long) random.nextInt((int) (kind < 18 ? 1000 : STEP_BACK_LIMIT)));
    }

    static long pick(Random random, long... values) {
        return values[random.nextInt(values.length)];
    }

    // ---- running

    /** One store's view of a history: this process's limiter, the other process's, and the leases admitted. */
    private static final class Side implements AutoCloseable {
        final String name;
        final MutableClock clock;
        final Supplier<LimiterStore> opener;
        final LimiterStore otherStore;
        final RateLimiter other;
        final List<Lease> leases = new ArrayList<>();
        final List<RateLimiter> closed = new ArrayList<>();
        /** Leases admitted before the latest reopen: their DynamoDB store is closed. */
        int leasesOfClosedStores;
        LimiterStore store;
        RateLimiter mine;

        Side(String name, MutableClock clock, Supplier<LimiterStore> opener, LimiterStore otherStore) {
            this.name = name;
            this.clock = clock;
            this.opener = opener;
            this.otherStore = otherStore;
            this.store = opener.get();
            this.mine = limiter(store, clock);
            this.other = limiter(otherStore, clock);
        }

        static RateLimiter limiter(LimiterStore store, MutableClock clock) {
            return RateLimiter.builder().store(store).clock(clock).noCircuitBreaker().build();
        }

        void reopen() {
            mine.close();
            closed.add(mine);
            leasesOfClosedStores = leases.size();
            if (store != otherStore) {
                store.close();
            }
            store = opener.get();
            mine = limiter(store, clock);
        }

        void sweep() {
            if (store instanceof InMemoryStore memory) {
                memory.evictIdle(clock.millis());
            } else {
                ((DynamoDbStore) store).sweepReservationsForTest();
            }
        }

        @Override
        public void close() {
            mine.close();
            other.close();
            store.close();
            if (otherStore != store) {
                otherStore.close();
            }
        }
    }

    /** What one side answered to one step; {@code threw} the exception's simple name, or null. */
    record Seen(String threw, String message, Boolean admitted, List<LimitStatus> statuses, Duration retryAfter,
            Map<String, Long> available, List<LimitView> views) {

        static Seen threw(Throwable e) {
            String message = String.valueOf(e.getMessage());
            return new Seen(e.getClass().getSimpleName(), message.length() > 120 ? message.substring(0, 120) + "..."
                    : message, null, null, null, null, null);
        }

        static Seen ok() {
            return new Seen(null, null, null, null, null, null, null);
        }

        @Override
        public String toString() {
            if (threw != null) {
                return "threw " + threw + ": " + message;
            }
            StringBuilder text = new StringBuilder();
            if (admitted != null) {
                text.append(admitted ? "admitted" : "refused");
                if (!admitted && retryAfter != null) {
                    text.append(" retry ").append(retryAfter.toMillis()).append("ms");
                }
            }
            if (statuses != null) {
                for (LimitStatus s : statuses) {
                    text.append(' ').append(s.entityId()).append('.').append(s.limitName()).append('=')
                            .append(s.available()).append('/').append(s.capacity())
                            .append(s.exceeded() ? "!" : "").append(s.soft() ? "~" : "");
                    if (s.exceeded()) {
                        text.append("(").append(s.retryAfter().toMillis()).append("ms)");
                    }
                }
            }
            if (available != null) {
                text.append(available);
            }
            if (views != null) {
                for (LimitView v : views) {
                    text.append(' ').append(v.name()).append('=').append(v.available()).append('/')
                            .append(v.capacity()).append(" consumed ").append(v.consumed());
                    if (v.nextReset() != null) {
                        text.append(" reset ").append(v.nextReset());
                    }
                }
            }
            return text.isEmpty() ? "ok" : text.toString().trim();
        }
    }

    /** One step's outcome on both sides, and the mismatch if they differ beyond what the docs allow. */
    record Line(int index, Step step, Seen memory, Seen dynamo, String mismatch) {
    }

    /** The outcome of one history: its lines up to the first mismatch (or all), and that mismatch's kind. */
    record Outcome(long seed, List<Step> steps, List<Line> lines, String kind, String usageMismatch) {
        boolean failed() {
            return kind != null;
        }

        String transcript() {
            StringBuilder text = new StringBuilder("seed ").append(seed).append(": ").append(kind).append('\n');
            for (Line line : lines) {
                String both = line.memory().toString().equals(line.dynamo().toString())
                        ? "both: " + line.memory()
                        : "memory: " + line.memory() + "\n        dynamodb: " + line.dynamo();
                text.append(String.format("%3d %s%n        %s%n", line.index(), line.step(), both));
                if (line.mismatch() != null) {
                    text.append("        ^^^ ").append(line.mismatch()).append('\n');
                }
            }
            if (usageMismatch != null) {
                text.append("    usage history: ").append(usageMismatch).append('\n');
            }
            return text.toString();
        }
    }

    Outcome run(long seed, List<Step> steps) {
        MutableClock clock = new MutableClock(Instant.parse("2026-03-02T21:25:00Z")
                .plusMillis(Math.floorMod(seed * 7_919_993L, 86_400_000L)));
        Instant started = clock.instant();
        InMemoryStore memoryStore = new InMemoryStore();
        DynamoDbStore first = DynamoDbTestStores.builder(getClass(), clock).stampTtl(STAMP_TTL).build();
        Supplier<DynamoDbStore> sameTable = () -> DynamoDbStore.builder().client(DynamoDbTestStores.client())
                .table(first.table()).namespace(first.namespace()).clock(clock).stampTtl(STAMP_TTL)
                .requestTimeout(DynamoDbTestStores.REQUEST_TIMEOUT).build();
        boolean[] opened = {false};
        Supplier<LimiterStore> dynamoOpener = () -> {
            if (!opened[0]) {
                opened[0] = true;
                return first;
            }
            return sameTable.get();
        };
        Map<String, List<Limit>> config = new LinkedHashMap<>();
        List<Line> lines = new ArrayList<>();
        boolean[] underAdmitted = {false};
        long latest = clock.millis();
        Map<String, Long> refusedAt = new java.util.HashMap<>();
        try (Side memory = new Side("memory", clock, () -> memoryStore, memoryStore);
             Side dynamo = new Side("dynamodb", clock, dynamoOpener, sameTable.get())) {
            // limits that reserved under a configuration this process replaced: its pools give back what they
            // hold with its next call on them or within GIVEN_BACK_MILLIS, until then it may report less
            Set<String> formerlyReserving = new java.util.HashSet<>();
            for (int i = 0; i < steps.size(); i++) {
                Step step = steps.get(i);
                Set<String> reserving = new java.util.HashSet<>(reserving(config, step));
                reserving.addAll(formerlyReserving);
                if (step instanceof Advance a && a.millis() >= GIVEN_BACK_MILLIS || step instanceof Sweep
                        || step instanceof Reopen) {
                    formerlyReserving.clear();
                }
                if (step instanceof Advance a && a.millis() >= GIVEN_BACK_MILLIS) {
                    givenBackSoon(clock, dynamo);
                    clock.advance(Duration.ofMillis(a.millis() - GIVEN_BACK_MILLIS));
                } else if (step instanceof Advance a) {
                    clock.advance(Duration.ofMillis(a.millis()));
                }
                Map<String, Long> versions = step instanceof Acquire ? versions((DynamoDbStore) dynamo.store)
                        : Map.of();
                Seen m;
                Seen d;
                String forgotten = null;
                if (step instanceof Sweep) {
                    forgotten = sweepBoth(memoryStore, memory, dynamo, config);
                    m = Seen.ok();
                    d = Seen.ok();
                } else if (ofClosedStore(dynamo, step)) {
                    d = apply(dynamo, step);
                    // a lease whose settling the closed store refused may count as closed afterwards, and its
                    // close() gives no slot back there (they come back at their lease timeout)
                    m = "StoreUnavailableException".equals(d.threw()) || "LeaseClosedException".equals(d.threw())
                            || step instanceof Release ? d : apply(memory, step);
                } else {
                    m = apply(memory, step);
                    d = apply(dynamo, step);
                }
                if (step instanceof Configure c) {
                    config.values().forEach(limits -> limits.stream().filter(Limit::localReservations)
                            .forEach(limit -> formerlyReserving.add(limit.name())));
                    track(config, c, m);
                    if (c.otherProcess()) {
                        givenBackSoon(clock, dynamo);
                        // stampTtl counts from when the configuration was read: at the latest, the latest instant
                        // the clock showed (it may stand behind that now)
                        clock.set(Instant.ofEpochMilli(Math.max(clock.millis(), latest) + STAMP_TTL.toMillis() + 1));
                        // ... and this process's clock shows that instant (as a running process's would), so that
                        // a later step back does not make the configuration it read fresh again
                        ((DynamoDbStore) dynamo.store).observeClockForTest();
                        formerlyReserving.clear();
                    }
                }
                if (step instanceof Advance a && (a.millis() >= 200 || a.millis() < 0)) {
                    // what the background sweep does to idle pools once the clock moved past IDLE_MILLIS, done now
                    // so that the next step does not race it
                    dynamo.sweep();
                }
                String entity = entity(step);
                Long shortAt = entity == null ? null : refusedAt.get(entity);
                boolean paced = shortAt != null && clock.millis() >= shortAt
                        && clock.millis() - shortAt < LOCAL_REFUSALS_MILLIS;
                String mismatch = forgotten != null ? forgotten : compare(step, m, d, reserving, paced);
                if (step instanceof Acquire && Boolean.FALSE.equals(d.admitted()) && d.statuses().stream()
                        .anyMatch(s -> s.exceeded() && reserving.contains(s.limitName()))) {
                    refusedAt.put(entity, clock.millis());
                }
                if (mismatch == null && step instanceof Acquire && Boolean.TRUE.equals(m.admitted())
                        && Boolean.FALSE.equals(d.admitted())) {
                    // a refusal the reservation bound allows (see compare): undo the exact side's call
                    memory.leases.remove(memory.leases.size() - 1).rollback();
                    underAdmitted[0] = true;
                }
                if (mismatch == null && step instanceof Acquire && Boolean.FALSE.equals(d.admitted())
                        && Boolean.FALSE.equals(m.admitted())) {
                    writtenByRefusal(memoryStore, (DynamoDbStore) dynamo.store, versions, config, clock.millis());
                }
                latest = Math.max(latest, clock.millis());
                lines.add(new Line(i + 1, step, m, d, mismatch));
                if (mismatch != null) {
                    return new Outcome(seed, steps, lines, kind(step, mismatch), null);
                }
            }
            String usage = compareUsage(memory, dynamo, started, clock.instant(), underAdmitted[0]);
            if (usage == null) {
                return new Outcome(seed, steps, List.of(), null, null);
            }
            return new Outcome(seed, steps, lines, "usage: " + usage.replaceAll("[0-9-]+", "N"), usage);
        }
    }

    /**
     * The sweep step: the in-memory store evicts the buckets whose life ended; DynamoDB's TTL may delete such an
     * item too, and this is done now for each bucket the in-memory store forgot (a bucket forgotten reads as new
     * even after a later change of its limits, where one kept would refill from its last write at the new rate:
     * {@code dynamodb.md}, "Both stores on the same histories"). DynamoDB must read each such bucket as full under
     * the limits in force: otherwise the in-memory store forgot a bucket whose life had not ended, and that is what
     * this returns.
     */
    private static String sweepBoth(InMemoryStore memoryStore, Side memory, Side dynamo,
            Map<String, List<Limit>> config) {
        List<dev.zaelimiter.store.BucketKey> held = ENTITIES.stream()
                .map(e -> new dev.zaelimiter.store.BucketKey(e, RESOURCE)).filter(memoryStore::holds).toList();
        memory.sweep();
        dynamo.sweep();
        for (dev.zaelimiter.store.BucketKey key : held) {
            if (memoryStore.holds(key)) {
                continue;
            }
            List<LimitView> views;
            try {
                views = dynamo.mine.inspect(key.entityId(), RESOURCE).limits();
            } catch (RuntimeException noLimitsInForce) {
                views = List.of();
            }
            for (LimitView view : views) {
                if (view.available() < view.capacity()) {
                    return "memory evicted " + key.entityId() + "'s bucket, not full on DynamoDB: " + view;
                }
            }
            dynamo.store.deleteBucket(key);
        }
        return null;
    }

    /**
     * A refused cascade on DynamoDB writes the buckets it took from before it learned of the refusal, and gives
     * back what it took ({@code dynamodb.md}, "Both stores on the same histories"): such a bucket counts as written
     * at the refusal's instant, which a later step back of the clock or change of rate counts from. The in-memory
     * store, which writes nothing for a refused call, is written the same at that instant (a correction of
     * nothing) for each bucket whose DynamoDB item the refused call wrote ({@code before}: the items' versions
     * before it).
     */
    private static void writtenByRefusal(InMemoryStore memoryStore, DynamoDbStore dynamoStore,
            Map<String, Long> before, Map<String, List<Limit>> config, long now) {
        Map<String, Long> after = versions(dynamoStore);
        for (String entity : ENTITIES) {
            List<Limit> limits = config.getOrDefault(entity, config.get(""));
            if (limits == null || after.get(entity).equals(before.get(entity))) {
                continue;
            }
            memoryStore.apply(List.of(new dev.zaelimiter.store.BucketDebit(
                    new dev.zaelimiter.store.BucketKey(entity, RESOURCE), limits, Map.of(), false,
                    !config.containsKey(entity))), now);
        }
    }

    /** The version of each entity's DynamoDB bucket item (0: none). */
    private static Map<String, Long> versions(DynamoDbStore store) {
        Map<String, Long> versions = new java.util.HashMap<>();
        for (String entity : ENTITIES) {
            versions.put(entity, ItemCodec.version(store.bucketItemForTest(entity, RESOURCE)));
        }
        return versions;
    }

    /**
     * What the background sweep does to a pool left idle: it gives its tokens back within {@value #GIVEN_BACK_MILLIS}
     * ms of the pool's last call ({@code hot-buckets.md}), under the configuration in force then; done at that
     * instant, so that a longer move of the clock does not count the refill up to its end at that configuration.
     */
    private static void givenBackSoon(MutableClock clock, Side dynamo) {
        clock.advance(Duration.ofMillis(GIVEN_BACK_MILLIS));
        dynamo.sweep();
    }

    private static void track(Map<String, List<Limit>> config, Configure change, Seen seen) {
        if (seen.threw() != null) {
            return;
        }
        String level = change.entity() == null ? "" : change.entity();
        if (change.limits() == null) {
            config.remove(level);
        } else {
            config.put(level, change.limits());
        }
    }

    private static String entity(Step step) {
        return step instanceof Acquire a ? a.entity() : step instanceof Check c ? c.entity()
                : step instanceof Available av ? av.entity() : step instanceof Inspect in ? in.entity() : null;
    }

    /** The reserving limits in force for the step's entity (entity level first, then the resource defaults). */
    private static Set<String> reserving(Map<String, List<Limit>> config, Step step) {
        String entity = entity(step);
        if (entity == null) {
            return Set.of();
        }
        List<Limit> limits = config.getOrDefault(entity, config.getOrDefault("", List.of()));
        return limits.stream().filter(Limit::localReservations).map(Limit::name).collect(Collectors.toSet());
    }

    private static Seen apply(Side side, Step step) {
        try {
            if (step instanceof Configure c) {
                RateLimiter by = c.otherProcess() ? side.other : side.mine;
                if (c.entity() == null && c.limits() == null) {
                    by.admin().deleteResourceDefaults(RESOURCE);
                } else if (c.entity() == null) {
                    by.admin().setResourceDefaults(RESOURCE, c.limits());
                } else if (c.limits() == null) {
                    by.admin().deleteLimits(c.entity(), RESOURCE);
                } else {
                    by.admin().setLimits(c.entity(), RESOURCE, c.limits());
                }
            } else if (step instanceof Acquire a) {
                Attempt attempt = side.mine.tryAcquire(a.entity(), RESOURCE, a.amounts());
                if (attempt.admitted()) {
                    side.leases.add(attempt.lease());
                }
                return new Seen(null, null, attempt.admitted(), attempt.statuses(), attempt.retryAfter(), null, null);
            } else if (step instanceof Check c) {
                Availability availability = side.mine.checkAvailability(c.entity(), RESOURCE, c.amounts());
                return new Seen(null, null, availability.allowed(), availability.statuses(), availability.retryAfter(),
                        null, null);
            } else if (step instanceof Available a) {
                return new Seen(null, null, null, null, null, new TreeMap<>(side.mine.available(a.entity(), RESOURCE)),
                        null);
            } else if (step instanceof Inspect i) {
                return new Seen(null, null, null, null, null, null, side.mine.inspect(i.entity(), RESOURCE).limits());
            } else if (step instanceof Adjust a) {
                lease(side, a.lease()).adjust(a.limit(), a.amount());
            } else if (step instanceof Rollback r) {
                lease(side, r.lease()).rollback();
            } else if (step instanceof Release r) {
                lease(side, r.lease()).close();
            } else if (step instanceof Family f) {
                if (side.mine.admin().getEntity(f.parent()).isEmpty()) {
                    side.mine.admin().createEntity(f.parent());
                }
                side.mine.admin().createEntity(new dev.zaelimiter.Entity(f.child(), null, f.parent(), f.cascade()));
            } else if (step instanceof Sweep) {
                side.sweep();
            } else if (step instanceof Reopen) {
                side.reopen();
            }
            return Seen.ok();
        } catch (NoLease none) {
            return Seen.ok();
        } catch (RuntimeException e) {
            return Seen.threw(e);
        }
    }

    /** Thrown when a lease step finds no lease admitted yet: the step does nothing on either side. */
    private static final class NoLease extends RuntimeException {
        NoLease() {
            super(null, null, false, false);
        }
    }

    /**
     * Whether the step settles a lease taken before the limiter was reopened: its DynamoDB store is closed, and
     * every operation of a closed store raises {@link StoreUnavailableException} ({@code dynamodb.md}, "After
     * close()"). The in-memory store stays open (it is the same store), so the step runs there only when DynamoDB
     * answered otherwise (a lease settled before, a wrong limit name, nothing to write), and must then agree.
     */
    private static boolean ofClosedStore(Side dynamo, Step step) {
        int index = step instanceof Adjust a ? a.lease() : step instanceof Rollback r ? r.lease()
                : step instanceof Release r ? r.lease() : -1;
        return index >= 0 && !dynamo.leases.isEmpty() && index % dynamo.leases.size() < dynamo.leasesOfClosedStores;
    }

    private static Lease lease(Side side, int index) {
        if (side.leases.isEmpty()) {
            throw new NoLease();
        }
        return side.leases.get(index % side.leases.size());
    }

    /** Null when the two answers agree within what the docs allow; otherwise what differs. */
    static String compare(Step step, Seen m, Seen d, Set<String> reserving, boolean paced) {
        if (!Objects.equals(m.threw(), d.threw())) {
            return "exception differs";
        }
        if (!Objects.equals(m.admitted(), d.admitted())) {
            // refused by held tokens only: each refusing limit reserves and reports at most the bound less than the
            // exact bucket had before the call; or refused locally within 20 ms of the bucket coming up short
            boolean allowed = Boolean.TRUE.equals(m.admitted()) && d.statuses() != null
                    && m.statuses().size() == d.statuses().size();
            for (int i = 0; allowed && i < d.statuses().size(); i++) {
                LimitStatus a = m.statuses().get(i);
                LimitStatus b = d.statuses().get(i);
                allowed = !b.exceeded() || reserving.contains(b.limitName()) && (paced && step instanceof Acquire
                        || b.available() <= a.available() + a.requested()
                        && a.available() + a.requested() - b.available() <= a.capacity() / 2);
            }
            return allowed ? null : "decision differs";
        }
        if (m.statuses() != null) {
            if (m.statuses().size() != d.statuses().size()) {
                return "statuses differ in number";
            }
            boolean pooled = step instanceof Acquire;
            for (int i = 0; i < m.statuses().size(); i++) {
                LimitStatus a = m.statuses().get(i);
                LimitStatus b = d.statuses().get(i);
                if (!a.limitName().equals(b.limitName()) || a.capacity() != b.capacity()
                        || a.requested() != b.requested() || a.exceeded() != b.exceeded() || a.soft() != b.soft()) {
                    return "status of " + a.limitName() + " differs";
                }
                boolean reserves = reserving.contains(a.limitName());
                if (!available(a.available(), b.available(), a.capacity(), reserves, pooled && !a.exceeded())) {
                    return "available of " + a.limitName() + " differs";
                }
                if (!reserves && !a.retryAfter().equals(b.retryAfter())) {
                    return "retry-after of " + a.limitName() + " differs";
                }
            }
            boolean anyReserving = m.statuses().stream().anyMatch(s -> reserving.contains(s.limitName()));
            if (!anyReserving && !Objects.equals(m.retryAfter(), d.retryAfter())) {
                return "retry-after differs";
            }
        }
        if (m.available() != null) {
            if (!m.available().keySet().equals(d.available().keySet())) {
                return "available names differ";
            }
            for (String name : m.available().keySet()) {
                if (!available(m.available().get(name), d.available().get(name), Long.MAX_VALUE,
                        reserving.contains(name), false)) {
                    return "available() differs";
                }
            }
        }
        if (m.views() != null) {
            if (m.views().size() != d.views().size()) {
                return "inspect differs in limits";
            }
            for (int i = 0; i < m.views().size(); i++) {
                LimitView a = m.views().get(i);
                LimitView b = d.views().get(i);
                boolean reserves = reserving.contains(a.name());
                if (!available(a.available(), b.available(), a.capacity(), reserves, false)) {
                    return "inspect available differs";
                }
                if (!reserves && a.consumed() != b.consumed()) {
                    return "inspect consumed differs";
                }
                if (!a.equals(new LimitView(b.name(), b.capacity(), a.available(), b.refillAmount(),
                        b.refillPeriod(), b.soft(), a.overdrawn(), b.activeWindow(), b.nextReset(), a.consumed()))) {
                    return "inspect " + a.name() + " differs";
                }
            }
        }
        return null;
    }

    /**
     * Whether DynamoDB's {@code available} may differ from the exact one: equal, or for a reserving limit at most
     * half the capacity less (held plus handed out), or for a pool-served admission anything from 0 up to the exact.
     */
    static boolean available(long exact, long dynamo, long capacity, boolean reserves, boolean pooled) {
        if (exact == dynamo) {
            return true;
        }
        if (!reserves || dynamo > exact) {
            return false;
        }
        return pooled ? dynamo >= 0 : capacity == Long.MAX_VALUE || exact - dynamo <= capacity / 2;
    }

    private static String compareUsage(Side memory, Side dynamo, Instant from, Instant to, boolean consumedOnly) {
        Map<String, String> m = usage(memory, from, to, consumedOnly);
        Map<String, String> d = usage(dynamo, from, to, consumedOnly);
        return m.equals(d) ? null : "memory " + m + " dynamodb " + d;
    }

    private static Map<String, String> usage(Side side, Instant from, Instant to, boolean consumedOnly) {
        Map<String, long[]> totals = new TreeMap<>();
        Instant start = from.minus(Duration.ofDays(1));
        Instant end = to.plus(Duration.ofDays(1));
        if (start.isAfter(end)) {
            start = end.minus(Duration.ofDays(2));
        }
        // DynamoDB keeps a day's usage for its day retention after the day, the in-memory store by count
        // (usage-and-audit.md, "Retention and bounds"): only the days both still keep are compared
        Instant kept = side.clock.instant().minus(UsageItems.DEFAULT_DAY_RETENTION)
                .truncatedTo(java.time.temporal.ChronoUnit.DAYS).plus(Duration.ofDays(1));
        if (start.isBefore(kept)) {
            start = kept;
        }
        side.mine.flushUsage();
        for (String entity : ENTITIES) {
            for (Usage u : side.mine.admin().usage(entity, UsageGranularity.DAY, start, end)) {
                long[] sum = totals.computeIfAbsent(entity + "." + u.limitName(), k -> new long[4]);
                sum[0] += u.consumed();
                sum[1] += u.admitted();
                sum[2] += u.refused();
                sum[3] += u.overdrawn();
            }
        }
        Map<String, String> text = new TreeMap<>();
        // comparing consumption only (a reserving limit under-admitted): a call the exact side admitted and rolled
        // back leaves a row that consumed nothing
        totals.entrySet().removeIf(total -> consumedOnly && total.getValue()[0] == 0);
        totals.forEach((k, v) -> text.put(k, consumedOnly ? "consumed " + v[0]
                : "consumed " + v[0] + " admitted " + v[1] + " refused " + v[2] + " overdrawn " + v[3]));
        return text;
    }

    private static String kind(Step step, String mismatch) {
        return step.getClass().getSimpleName() + ": " + mismatch;
    }

    /** Drops steps (halves first, then single ones) while the history still fails with the same kind. */
    Outcome shrink(Outcome failed) {
        List<Step> steps = new ArrayList<>(failed.steps().subList(0, failed.lines().size() == failed.steps().size()
                ? failed.steps().size() : failed.lines().size()));
        Outcome best = failed;
        for (int chunk = Math.max(1, steps.size() / 2); chunk >= 1; chunk /= 2) {
            for (int at = steps.size() - chunk; at >= 0; at -= chunk) {
                List<Step> fewer = new ArrayList<>(steps);
                fewer.subList(at, Math.min(at + chunk, fewer.size())).clear();
                if (fewer.isEmpty()) {
                    continue;
                }
                Outcome tried = run(failed.seed(), fewer);
                if (failed.kind().equals(tried.kind())) {
                    steps = new ArrayList<>(tried.steps().subList(0, Math.min(tried.steps().size(),
                            tried.usageMismatch() == null ? tried.lines().size() : tried.steps().size())));
                    best = tried;
                    at = Math.min(at, steps.size());
                }
            }
        }
        return best;
    }

    /** What a (shrunk) history contains, to tell causes apart among histories that fail the same way. */
    static String features(List<Step> steps) {
        Set<String> features = new java.util.TreeSet<>();
        long configurations = 0;
        for (Step step : steps) {
            if (step instanceof Advance a && a.millis() < 0) {
                features.add("clock back");
            } else if (step instanceof Advance a && a.millis() >= 3_600_000L) {
                features.add("clock +1h or more");
            } else if (step instanceof Configure c) {
                configurations++;
                if (c.otherProcess()) {
                    features.add("other process");
                }
                if (c.limits() != null && c.limits().stream().anyMatch(Limit::localReservations)) {
                    features.add("reserving");
                }
            } else if (!(step instanceof Acquire || step instanceof Check || step instanceof Available
                    || step instanceof Inspect || step instanceof Advance)) {
                features.add(step.getClass().getSimpleName().toLowerCase());
            }
        }
        if (configurations > 1) {
            features.add("config change");
        }
        return features.toString();
    }

    @Test
    void bothStoresAgreeAcrossRandomHistories() throws Exception {
        String replay = System.getProperty(SEED);
        long firstSeed = Long.getLong(FIRST_SEED, 1);
        List<Long> replays = replay == null ? List.of()
                : java.util.Arrays.stream(replay.split(",")).map(String::trim).map(Long::valueOf).toList();
        List<Long> seeds = new ArrayList<>(replays);
        if (replay == null) {
            int plain = Integer.getInteger(HISTORIES, CI_HISTORIES);
            int extended = Integer.getInteger(EXTENDED, CI_EXTENDED);
            // interleaved in proportion, so that a time budget leaves out plain and extended histories alike
            for (int p = 0, e = 0; p < plain || e < extended; ) {
                if (e >= extended || p < plain && (long) p * extended <= (long) e * plain) {
                    seeds.add(firstSeed + p++);
                } else {
                    seeds.add(EXTENDED_BASE + firstSeed - 1 + e++);
                }
            }
        }
        int histories = seeds.size();
        long budgetNanos = Integer.getInteger(BUDGET, CI_BUDGET_SECONDS) * 1_000_000_000L;
        java.util.concurrent.atomic.AtomicInteger skipped = new java.util.concurrent.atomic.AtomicInteger();
        int toShrink = Integer.getInteger(SHRINK, 1);
        Map<String, List<Long>> kinds = new LinkedHashMap<>();
        Map<String, List<Long>> shrunkKinds = new LinkedHashMap<>();
        Map<String, String> transcripts = new LinkedHashMap<>();
        long startedNanos = System.nanoTime();
        ExecutorService threads = Executors.newFixedThreadPool(Integer.getInteger(THREADS, 2));
        List<Future<Outcome>> outcomes = new ArrayList<>();
        for (long seed : seeds) {
            outcomes.add(threads.submit(() -> {
                if (budgetNanos > 0 && System.nanoTime() - startedNanos > budgetNanos) {
                    skipped.incrementAndGet();                  // past the time budget: not started
                    return null;
                }
                return run(seed, history(seed));
            }));
        }
        threads.shutdown();
        for (Future<Outcome> future : outcomes) {
            Outcome outcome = future.get();
            if (outcome == null || !outcome.failed()) {
                continue;
            }
            long seed = outcome.seed();
            kinds.computeIfAbsent(outcome.kind(), k -> new ArrayList<>()).add(seed);
            if (toShrink > 0) {
                toShrink--;
                Outcome shrunk = shrink(outcome);
                String kind = shrunk.kind() + " " + features(shrunk.steps());
                shrunkKinds.computeIfAbsent(kind, k -> new ArrayList<>()).add(seed);
                transcripts.putIfAbsent(kind, shrunk.transcript());
            }
        }
        System.out.printf("%d histories in %d s (%d more not started within the time budget), %d mismatching%n",
                histories - skipped.get(), (System.nanoTime() - startedNanos) / 1_000_000_000L, skipped.get(),
                kinds.values().stream().mapToInt(List::size).sum());
        if (!kinds.isEmpty()) {
            StringBuilder report = new StringBuilder("the stores disagree (replay a seed with -D").append(SEED)
                    .append("=N); kinds of mismatch:\n");
            kinds.forEach((kind, failed) -> report.append("  ").append(kind).append(": ").append(failed.size())
                    .append(" histories, e.g. ").append(failed.subList(0, Math.min(5, failed.size()))).append('\n'));
            report.append("every mismatching seed: ").append(kinds.values().stream().flatMap(List::stream).sorted()
                    .toList()).append('\n');
            report.append("shrunk (-D").append(SHRINK).append("=N shrinks the first N), by kind and what the")
                    .append(" shortest history contains:\n");
            shrunkKinds.forEach((kind, failed) -> report.append("  ").append(kind).append(": ").append(failed)
                    .append('\n'));
            transcripts.values().forEach(report::append);
            fail(report.toString());
        }
    }
}
