package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LevelConfig;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import java.util.List;
import java.util.Optional;

/** A tiny MVC application for the filter tests: a controller, a controllable clock, and a store that can fail. */
final class TestWebApp {

    private TestWebApp() {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    @Import(Controller.class)
    static class Mvc {

        @Bean
        MutableClock clock() {
            return MutableClock.start();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FailingStoreConfig {

        @Bean
        FlakyStore limiterStore() {
            return new FlakyStore();
        }
    }

    @RestController
    static class Controller {

        @GetMapping({"/api/items", "/api/special/x", "/public/hello", "/admin/x"})
        String items() {
            return "ok";
        }

        @PostMapping("/api/items")
        String create() {
            return "created";
        }

        @GetMapping("/api/boom")
        String boom() {
            throw new IllegalStateException("boom");
        }
    }

    /** An in-memory store that raises {@link StoreUnavailableException} on reads and debits while {@link #failing}. */
    static final class FlakyStore implements LimiterStore {

        private final InMemoryStore delegate = new InMemoryStore();
        volatile boolean failing;
        /** Fails only unconditional writes: adjustments and rollbacks, not admissions. */
        volatile boolean failingApply;

        private void check() {
            if (failing) {
                throw new StoreUnavailableException("store down (test)", null);
            }
        }

        @Override
        public ConfigSnapshot loadConfig(String entityId, String resource) {
            check();
            return delegate.loadConfig(entityId, resource);
        }

        @Override
        public LevelConfig getLevel(ConfigScope scope) {
            return delegate.getLevel(scope);
        }

        @Override
        public void putLimits(ConfigScope scope, List<Limit> limits) {
            delegate.putLimits(scope, limits);
        }

        @Override
        public void putDisabled(ConfigScope scope, DisabledMode mode) {
            delegate.putDisabled(scope, mode);
        }

        @Override
        public void putCascade(ConfigScope scope, Boolean cascade) {
            delegate.putCascade(scope, cascade);
        }

        @Override
        public void createEntity(Entity entity) {
            delegate.createEntity(entity);
        }

        @Override
        public Optional<Entity> getEntity(String entityId) {
            return delegate.getEntity(entityId);
        }

        @Override
        public void updateEntity(Entity entity) {
            delegate.updateEntity(entity);
        }

        @Override
        public boolean deleteEntity(String entityId) {
            return delegate.deleteEntity(entityId);
        }

        @Override
        public List<Entity> children(String parentId) {
            return delegate.children(parentId);
        }

        @Override
        public AcquireResult tryAcquire(List<BucketDebit> debits, long now) {
            check();
            return delegate.tryAcquire(debits, now);
        }

        @Override
        public void apply(List<BucketDebit> debits, long now) {
            check();
            if (failingApply) {
                throw new StoreUnavailableException("store down for writes (test)", null);
            }
            delegate.apply(debits, now);
        }

        @Override
        public void deleteBucket(BucketKey key) {
            delegate.deleteBucket(key);
        }

        @Override
        public List<BucketSnapshot> peek(List<BucketDebit> debits, long now) {
            check();
            return delegate.peek(debits, now);
        }
    }
}
