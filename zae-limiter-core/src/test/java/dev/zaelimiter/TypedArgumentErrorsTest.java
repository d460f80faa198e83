package dev.zaelimiter;

import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every public method and constructor of the API in {@code dev.zaelimiter}, called through reflection so that a new
 * one is covered as soon as it exists: a {@code null} where the Javadoc allows none, and the extreme values of each
 * number, duration and instant, raise a {@link ValidationException} (a {@link RateLimiterException} for the
 * extremes), never a {@code NullPointerException}, {@code ArithmeticException} or {@code DateTimeException}; a
 * refused call writes nothing.
 *
 * <p>Not swept: exceptions, the interfaces users implement ({@link RateLimiterListener}, {@link Sleeper}) and the
 * records the library hands out ({@link #RESULTS}), which users read rather than build.
 */
class TypedArgumentErrorsTest {

    private static final Set<Class<?>> RESULTS = Set.of(AuditEvent.class, AuditPage.class, Availability.class,
            BucketView.class, Decision.class, LimitStatus.class, LimitView.class, Usage.class);

    private static final Set<Class<?>> IMPLEMENTED_BY_USERS = Set.of(RateLimiterListener.class, Sleeper.class);

    /**
     * Parameters whose Javadoc says what {@code null} means, as {@code Type.method/arity:index} ({@code <init>} for a
     * constructor).
     */
    private static final Set<String> NULLABLE = Set.of(
            "Entity.<init>/4:1", "Entity.<init>/4:2", "Entity.withName/1:0", "Entity.withParent/1:0",
            "AuditQuery.<init>/7:1", "AuditQuery.<init>/7:2", "AuditQuery.<init>/7:3", "AuditQuery.<init>/7:4",
            "AuditQuery.<init>/7:6", "AuditQuery.between/2:0", "AuditQuery.between/2:1", "AuditQuery.after/1:0",
            "AuditQuery.entity/2:1",
            "RateLimiterAdmin.setParent/2:1", "RateLimiterAdmin.usage/6:1", "RateLimiterAdmin.usage/6:2",
            "ScheduleEntry.of/6:1", "ScheduleEntry.of/6:2", "ScheduleEntry.of/6:3", "ScheduleEntry.of/6:4",
            "ScheduleEntry.of/6:5", "ScheduleEntry.zone/2:1",
            "AcquireRequest.onUnavailable/1:0");

    /** Text arguments that must follow a grammar other than the identifiers' (which {@code "user-1"} follows). */
    private static final Map<String, String> TEXT = Map.ofEntries(
            Map.entry("Limit.quota/4:2", "0 0 * * *"),
            Map.entry("ScheduleEntry.scaled/3:0", "* 9-17 * * *"),
            Map.entry("ScheduleEntry.scaled/2:0", "* 9-17 * * *"),
            Map.entry("ScheduleEntry.absolute/3:0", "* 9-17 * * *"),
            Map.entry("ScheduleEntry.absolute/5:0", "* 9-17 * * *"),
            Map.entry("ScheduleEntry.of/6:0", "* 9-17 * * *"),
            Map.entry("ScheduleEntry.zone/2:1", "UTC"),
            Map.entry("RetryAfter.parse/2:0", "Wed, 21 Oct 2026 07:28:00 GMT"),
            Map.entry("RateLimiter.pauseFromRetryAfter/2:1", "10"),
            Map.entry("RateLimiter.pauseFromRetryAfter/3:2", "10"),
            Map.entry("AuditQuery.after/1:0", "000000000000001#x"),
            Map.entry("AuditQuery.<init>/7:6", "000000000000001#x"));

    private static final Instant START = Instant.parse("2026-03-01T00:00:00Z");

    private MutableClock clock;
    private RateLimiter limiter;
    private List<Lease> leases;

    @BeforeEach
    void setUp() {
        clock = new MutableClock(START);
        limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("user-1", List.of(Limit.perMinute("rpm", 1000),
                Limit.perMinute("tpm", 1000)));
        leases = List.of(limiter.acquire("user-1", "user-1", Map.of("rpm", 1L)),
                limiter.acquire("user-1", "user-1", Map.of("rpm", 1L, "tpm", 1L)));
    }

    @Test
    void aNullArgumentIsAValidationExceptionNamingItAndWritesNothing() throws Exception {
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        int eventsBefore = auditEvents();
        Map<String, Long> availableBefore = limiter.available("user-1", "user-1");
        for (Call call : calls()) {
            for (int i = 0; i < call.parameterTypes().length; i++) {
                if (call.parameterTypes()[i].isPrimitive() || NULLABLE.contains(call.key(i))) {
                    continue;
                }
                Object[] args = call.arguments();
                args[i] = null;
                Throwable thrown = call.invoke(args);
                checked++;
                if (!(thrown instanceof ValidationException e) || e.value() != null || e.field().isBlank()) {
                    wrong.add(call.key(i) + " -> " + (thrown == null ? "returned" : thrown));
                }
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(checked).as("arguments checked").isGreaterThan(100);
        assertThat(auditEvents()).as("audit events").isEqualTo(eventsBefore);
        assertThat(limiter.available("user-1", "user-1")).isEqualTo(availableBefore);
    }

    @Test
    void anExtremeNumberDurationOrInstantIsATypedError() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Call call : calls()) {
            for (int i = 0; i < call.parameterTypes().length; i++) {
                for (Object extreme : extremes(call.parameterTypes()[i])) {
                    Object[] args = call.arguments();
                    args[i] = extreme;
                    Throwable thrown = call.invoke(args);
                    if (thrown != null && !(thrown instanceof RateLimiterException)) {
                        wrong.add(call.key(i) + " = " + extreme + " -> " + thrown);
                    }
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void theCasesAnAuditFoundNameTheirArgument() {
        RateLimiterAdmin admin = limiter.admin();
        assertField(() -> Limit.quota("q", 10, "0 0 * * *", null), "zone");
        assertField(() -> Limit.custom("c", 10, 1, null), "refillPeriod");
        assertField(() -> Limit.sessionQuota("s", 10, null), "resetAfter");
        assertField(() -> Limit.concurrency("c", 10, null), "leaseTimeout");
        assertField(() -> ScheduleEntry.absolute("* * * * *", ZoneOffset.UTC, 10, 1, null), "refillPeriod");
        assertField(() -> Limit.perMinute("rpm", 1).withSchedule((List<ScheduleEntry>) null), "schedule");
        assertField(() -> limiter.acquire("user-1", "user-1", null), "consume");
        assertField(() -> AcquireRequest.of("user-1", "user-1").maxWait(null), "maxWait");
        assertField(() -> AcquireRequest.of("user-1", "user-1").limits(null), "limits");
        assertField(() -> admin.usage("user-1", null, START, START.plusSeconds(1)), "granularity");
        assertField(() -> admin.setEntityDisabled("user-1", "user-1", null), "mode");
        assertThatThrownBy(() -> admin.usage("user-1", UsageGranularity.DAY, Instant.MIN, Instant.MAX))
                .isInstanceOf(ValidationException.class).extracting("field").isEqualTo("from");
    }

    private static void assertField(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String field) {
        assertThatThrownBy(call).isInstanceOf(ValidationException.class).extracting("field").isEqualTo(field);
    }

    private int auditEvents() {
        return limiter.admin().audit(AuditQuery.all().pageSize(AuditQuery.MAX_PAGE_SIZE)).events().size();
    }

    // ---- the sweep

    /** One public method or constructor, on each receiver it has. */
    private record Call(Class<?> type, Executable executable, List<Object> receivers, Object[] sample) {

        Class<?>[] parameterTypes() {
            return executable.getParameterTypes();
        }

        String key(int index) {
            String name = executable instanceof Constructor<?> ? "<init>" : executable.getName();
            return type.getSimpleName() + "." + name + "/" + parameterTypes().length + ":" + index;
        }

        Object[] arguments() {
            return sample.clone();
        }

        /** What the call raised on any receiver (the first one that raised something else than expected). */
        Throwable invoke(Object[] args) throws Exception {
            Throwable first = null;
            for (Object receiver : receivers) {
                Throwable thrown = invokeOn(receiver, args);
                if (first == null || !(thrown instanceof RateLimiterException)) {
                    first = thrown;
                }
            }
            return first;
        }

        private Throwable invokeOn(Object receiver, Object[] args) throws Exception {
            try {
                if (executable instanceof Method m) {
                    m.invoke(receiver, args);
                } else {
                    ((Constructor<?>) executable).newInstance(args);
                }
                return null;
            } catch (InvocationTargetException e) {
                return e.getCause();
            }
        }
    }

    private List<Call> calls() throws Exception {
        List<Call> calls = new ArrayList<>();
        for (Class<?> type : sweptTypes()) {
            for (Constructor<?> c : type.getConstructors()) {
                calls.add(new Call(type, c, java.util.Collections.singletonList(null), sample(type, c)));
            }
            for (Method m : type.getDeclaredMethods()) {
                if (!Modifier.isPublic(m.getModifiers()) || m.isSynthetic() || m.getParameterCount() == 0
                        || isInheritedFromObjectOrEnum(m)) {
                    continue;
                }
                List<Object> receivers = Modifier.isStatic(m.getModifiers())
                        ? java.util.Collections.singletonList(null) : receivers(type);
                calls.add(new Call(type, m, receivers, sample(type, m)));
            }
        }
        return calls;
    }

    private static boolean isInheritedFromObjectOrEnum(Method m) {
        return m.getName().equals("equals") || m.getName().equals("valueOf") && m.getDeclaringClass().isEnum();
    }

    private static List<Class<?>> sweptTypes() {
        List<Class<?>> types = new ArrayList<>();
        for (Class<?> type : List.of(AcquireRequest.class, AcquireRequest.Target.class, Attempt.class,
                AuditQuery.class, CircuitBreaker.class, Entity.class, Lease.class, Limit.class, RateLimiter.class,
                RateLimiter.Builder.class, RateLimiterAdmin.class, RetryAfter.class, ScheduleEntry.class,
                UsageGranularity.class, Names.class)) {
            types.add(type);
        }
        return types;
    }

    @Test
    void theSweepCoversEveryPublicTypeOfTheApi() throws Exception {
        List<Class<?>> uncovered = new ArrayList<>();
        for (Class<?> type : PublicSurfaceTest.publicTypes()) {
            if (type.getPackageName().equals("dev.zaelimiter") && !Throwable.class.isAssignableFrom(type)
                    && !RESULTS.contains(type) && !IMPLEMENTED_BY_USERS.contains(type)
                    && !sweptTypes().contains(type) && hasMethodsWithParameters(type)) {
                uncovered.add(type);
            }
        }
        assertThat(uncovered).isEmpty();
    }

    private static boolean hasMethodsWithParameters(Class<?> type) {
        for (Method m : type.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !m.isSynthetic() && m.getParameterCount() > 0
                    && !isInheritedFromObjectOrEnum(m)) {
                return true;
            }
        }
        return type.getConstructors().length > 0 && !type.isEnum();
    }

    private List<Object> receivers(Class<?> type) {
        if (type == AcquireRequest.class) {
            return List.of(AcquireRequest.of("user-1", "user-1").consume("rpm", 1));
        } else if (type == AcquireRequest.Target.class) {
            return List.of(new AcquireRequest.Target("user-1", "user-1", Map.of("rpm", 1L)));
        } else if (type == AuditQuery.class) {
            return List.of(AuditQuery.all());
        } else if (type == Entity.class) {
            return List.of(Entity.of("user-1"));
        } else if (type == Lease.class || type == Attempt.class) {
            return new ArrayList<>(leases);
        } else if (type == Limit.class) {
            return List.of(Limit.perMinute("rpm", 10), Limit.concurrency("slots", 2));
        } else if (type == RateLimiter.class) {
            return List.of(limiter);
        } else if (type == RateLimiter.Builder.class) {
            return List.of(RateLimiter.builder());
        } else if (type == RateLimiterAdmin.class) {
            return List.of(limiter.admin());
        } else if (type == CircuitBreaker.class) {
            return List.of(limiter.circuitBreaker());
        } else if (type == UsageGranularity.class) {
            return List.of(UsageGranularity.HOUR, UsageGranularity.DAY);
        }
        throw new AssertionError("no receiver for " + type);
    }

    /** Valid arguments for every parameter of {@code executable}. */
    private Object[] sample(Class<?> type, Executable executable) {
        Type[] generic = executable.getGenericParameterTypes();
        Object[] args = new Object[generic.length];
        String name = executable instanceof Constructor<?> ? "<init>" : executable.getName();
        for (int i = 0; i < args.length; i++) {
            String key = type.getSimpleName() + "." + name + "/" + args.length + ":" + i;
            args[i] = TEXT.containsKey(key) ? TEXT.get(key) : sample(generic[i], i);
        }
        return args;
    }

    private Object sample(Type type, int index) {
        Class<?> raw = type instanceof ParameterizedType p ? (Class<?>) p.getRawType() : (Class<?>) type;
        if (raw == String.class) {
            return "user-1";
        } else if (raw == long.class || raw == Long.class) {
            return 1L;
        } else if (raw == int.class || raw == Integer.class) {
            return 1;
        } else if (raw == double.class || raw == Double.class) {
            return 0.5;
        } else if (raw == boolean.class) {
            return false;
        } else if (raw == Duration.class) {
            return Duration.ofMinutes(1);
        } else if (raw == Instant.class) {
            return START.plus(Duration.ofHours(index));          // a later parameter is a later instant
        } else if (raw == ZoneId.class) {
            return ZoneOffset.UTC;
        } else if (raw == Map.class) {
            return Map.of("rpm", 1L);
        } else if (raw == List.class) {
            Type element = ((ParameterizedType) type).getActualTypeArguments()[0];
            return element == ScheduleEntry.class ? List.of(ScheduleEntry.scaled("* 9-17 * * *", 0.5))
                    : List.of(Limit.perMinute("rpm", 10));
        } else if (raw == ScheduleEntry[].class) {
            return new ScheduleEntry[] {ScheduleEntry.scaled("* 9-17 * * *", 0.5)};
        } else if (raw == Entity.class) {
            return Entity.of("user-2");
        } else if (raw == DisabledMode.class) {
            return DisabledMode.BYPASS;
        } else if (raw == UsageGranularity.class) {
            return UsageGranularity.HOUR;
        } else if (raw == AuditQuery.Target.class) {
            return AuditQuery.Target.ALL;
        } else if (raw == AuditEvent.class) {
            return new AuditEvent("1", START, "alice", "pause", null, "user-1", null, "paused");
        } else if (raw == AuditQuery.class) {
            return AuditQuery.all();
        } else if (raw == AcquireRequest.class) {
            return AcquireRequest.of("user-1", "user-1").consume("rpm", 1);
        } else if (raw == Unavailable.class) {
            return Unavailable.ALLOW;
        } else if (raw == Callable.class) {
            return (Callable<Object>) () -> "done";
        } else if (raw == LimiterStore.class) {
            return new InMemoryStore();
        } else if (raw == Clock.class) {
            return clock;
        } else if (raw == RateLimiterListener.class) {
            return (RateLimiterListener) decision -> { };
        } else if (raw == Sleeper.class) {
            return (Sleeper) duration -> { };
        } else if (raw == Supplier.class) {
            return (Supplier<String>) () -> "alice";
        }
        throw new AssertionError("no sample argument of " + type);
    }

    private static List<Object> extremes(Class<?> type) {
        if (type == long.class || type == Long.class) {
            return List.of(Long.MIN_VALUE, -1L, 0L, Long.MAX_VALUE);
        } else if (type == int.class || type == Integer.class) {
            return List.of(Integer.MIN_VALUE, -1, 0, Integer.MAX_VALUE);
        } else if (type == double.class || type == Double.class) {
            return List.of(Double.NaN, Double.NEGATIVE_INFINITY, -1.0, 0.0, Double.MIN_VALUE, Double.MAX_VALUE,
                    Double.POSITIVE_INFINITY);
        } else if (type == Duration.class) {
            return List.of(Duration.ofSeconds(Long.MIN_VALUE), Duration.ofNanos(-1), Duration.ZERO,
                    Duration.ofNanos(1), Duration.ofSeconds(Long.MAX_VALUE, 999_999_999));
        } else if (type == Instant.class) {
            return List.of(Instant.MIN, Instant.EPOCH, Instant.MAX);
        }
        return List.of();
    }
}
