package dev.zaelimiter.autoconfigure.metrics;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.EntityExistsException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ForwardingStore;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.memory.InMemoryStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class MeteredLimiterStoreTests {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    /** A new store method is timed here, not only forwarded: only these three are left to ForwardingStore. */
    @Test
    void overridesEveryStoreMethodButTheUntimedOnes() throws NoSuchMethodException {
        Set<String> untimed = Set.of("usage", "audit", "close");
        for (Method method : LimiterStore.class.getMethods()) {
            if (Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            Method own = MeteredLimiterStore.class.getMethod(method.getName(), method.getParameterTypes());
            assertThat(own.getDeclaringClass()).as(method.toString()).isEqualTo(
                    untimed.contains(method.getName()) ? ForwardingStore.class : MeteredLimiterStore.class);
        }
    }

    @Test
    void timesEveryOperationAndReturnsWhatTheDelegateReturns() {
        InMemoryStore delegate = new InMemoryStore();
        MeteredLimiterStore store = new MeteredLimiterStore(delegate, () -> registry);
        ConfigScope api = ConfigScope.resource("api");
        List<Limit> limits = List.of(Limit.perMinute("rpm", 10));
        BucketDebit debit = new BucketDebit(new BucketKey("user-1", "api"), limits, Map.of("rpm", 1000L), false, true);

        store.putLimits(api, limits);
        store.putDisabled(api, DisabledMode.ENABLED);
        store.putCascade(api, false);
        store.putPause(api, 60_000L);
        store.putPause(api, null);
        assertThat(store.getLevel(api).limits()).isEqualTo(limits);
        assertThat(store.loadConfig("user-1", "api")).isNotNull();
        store.createEntity(new Entity("org-1", "Acme", null, false));
        store.createEntity(new Entity("user-1", null, "org-1", true));
        assertThat(store.getEntity("org-1")).map(Entity::name).contains("Acme");
        store.updateEntity(new Entity("org-1", "Acme Inc", null, false));
        assertThat(store.children("org-1")).extracting(Entity::id).containsExactly("user-1");
        assertThat(store.tryAcquire(List.of(debit), 0).admitted()).isTrue();
        store.apply(List.of(debit), 0);
        store.renew(List.of(debit), 0);
        assertThat(store.peek(List.of(debit), 0).get(0).state().balanceMilli("rpm")).isEqualTo(8000);
        store.deleteBucket(debit.key());
        assertThat(delegate.peek(List.of(debit), 0).get(0).state().balanceMilli("rpm")).isEqualTo(10_000);
        store.putLimits(ConfigScope.entity("user-1", "api"), limits);
        assertThat(store.entityScopes("user-1")).containsExactly(ConfigScope.entity("user-1", "api"));
        assertThat(store.deleteEntity("user-1")).isTrue();
        assertThat(store.usage()).as("passed on, untimed").isSameAs(delegate.usage());
        assertThat(store.audit()).isSameAs(delegate.audit());
        store.close();

        Set<String> operations = registry.get(MeteredLimiterStore.STORE_LATENCY).timers().stream()
                .map(t -> t.getId().getTag("operation")).collect(Collectors.toSet());
        Set<String> methods = Arrays.stream(LimiterStore.class.getMethods())
                .map(Method::getName)
                .filter(name -> !Set.of("close", "usage", "audit", "inPlaceBuckets").contains(name))
                .collect(Collectors.toSet());
        assertThat(operations).isEqualTo(methods);
        assertThat(registry.get(MeteredLimiterStore.STORE_LATENCY).tags("operation", "createEntity",
                "outcome", "success").timer().count()).isEqualTo(2);
    }

    @Test
    void passesOnInPlaceDecisionsTimedAsTryAcquire() {
        MeteredLimiterStore store = new MeteredLimiterStore(new InMemoryStore(), () -> registry);
        List<Limit> limits = List.of(Limit.perMinute("rpm", 1));
        InPlaceBuckets local = store.inPlaceBuckets();
        long[] balances = new long[1];
        InPlaceBuckets.Outcome<long[]> outcome = new InPlaceBuckets.Outcome<>() {
            @Override
            public void admitted(long[] call, long balanceMilli, long at) {
                call[0] = balanceMilli;
            }

            @Override
            public void refused(long[] call, BucketState stored) {
                call[0] = -1;
            }
        };

        BucketKey key = new BucketKey("user-1", "api");
        InPlaceBuckets.Take take = new InPlaceBuckets.Take(limits, 1000, false, false);

        assertThat(local.takeOne(key, take, 0, outcome, balances)).isTrue();
        assertThat(balances[0]).isZero();
        assertThat(local.takeOne(key, take, 0, outcome, balances)).isFalse();
        assertThat(balances[0]).isEqualTo(-1);

        assertThat(timer("tryAcquire", "success").count()).isEqualTo(2);
        assertThat(new MeteredLimiterStore(new SwitchableStore(), () -> registry).inPlaceBuckets()).isNull();
    }

    @Test
    void keepsTheLimiterFromLoadingAnUnchangedConfiguration() {
        MeteredLimiterStore store = new MeteredLimiterStore(new InMemoryStore(), () -> registry);
        RateLimiter limiter = RateLimiter.builder().store(store).clock(MutableClock.start()).build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100)));
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        long loads = timer("loadConfig", "success").count();

        for (int i = 0; i < 5; i++) {
            limiter.acquire("user-" + i, "api", Map.of("rpm", 1L)).close();
        }
        assertThat(timer("loadConfig", "success").count()).isEqualTo(loads);
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 3)));
        assertThat(limiter.acquire("user-1", "api", Map.of("rpm", 1L)).statuses().get(0).capacity()).isEqualTo(3);
    }

    @Test
    void tellsUnavailableFromOtherErrorsAndRethrowsBoth() {
        SwitchableStore switchable = new SwitchableStore();
        MeteredLimiterStore store = new MeteredLimiterStore(switchable, () -> registry);
        store.createEntity(Entity.of("org-1"));
        assertThatExceptionOfType(EntityExistsException.class).isThrownBy(() -> store.createEntity(Entity.of("org-1")));
        switchable.down();
        assertThatExceptionOfType(StoreUnavailableException.class).isThrownBy(() -> store.getEntity("org-1"));

        assertThat(timer("createEntity", "success").count()).isEqualTo(1);
        assertThat(timer("createEntity", "error").count()).isEqualTo(1);
        assertThat(timer("getEntity", "unavailable").count()).isEqualTo(1);
    }

    @Test
    void resolvesTheRegistryOnTheFirstCall() {
        int[] asked = new int[1];
        MeteredLimiterStore store = new MeteredLimiterStore(new InMemoryStore(), () -> {
            asked[0]++;
            return registry;
        });
        assertThat(asked[0]).isZero();
        store.getEntity("org-1");
        store.getEntity("org-1");
        assertThat(timer("getEntity", "success").count()).isEqualTo(2);
        assertThat(asked[0]).isEqualTo(1);
    }

    @Test
    void isADecoratingProxyOfTheStore() {
        MeteredLimiterStore store = new MeteredLimiterStore(new InMemoryStore(), () -> registry);
        assertThat(store.getDecoratedClass()).isEqualTo(InMemoryStore.class);
        assertThat(new MeteredLimiterStore(store, () -> registry).getDecoratedClass()).isEqualTo(InMemoryStore.class);
    }

    private Timer timer(String operation, String outcome) {
        return registry.get(MeteredLimiterStore.STORE_LATENCY).tags("operation", operation, "outcome", outcome).timer();
    }
}
