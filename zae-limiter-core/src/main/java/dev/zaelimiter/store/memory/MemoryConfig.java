package dev.zaelimiter.store.memory;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.EntityExistsException;
import dev.zaelimiter.EntityNotFoundException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.LevelConfig;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

import static dev.zaelimiter.internal.Identifiers.DEFAULT_RESOURCE;

/**
 * The configuration and the entities of an in-memory store, with the {@link dev.zaelimiter.store.LimiterStore}
 * methods that read and write them. The snapshot of an entity that configures nothing is the same for every such
 * entity of a resource: it is built once per resource and configuration version.
 */
final class MemoryConfig {

    private final ConcurrentHashMap<ConfigScope, LevelConfig> config = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Entity> entities = new ConcurrentHashMap<>();
    /**
     * Entities with a record or a level of their own (possibly emptied since): their snapshots are read in full. A
     * deleted entity leaves it. Writes are serialized on this object, so that a deletion cannot undo a concurrent
     * write's mark.
     */
    private final ConcurrentHashMap<String, Boolean> configured = new ConcurrentHashMap<>();
    /** Per resource, the snapshot of every entity that configures nothing, as of {@link #configVersion}. */
    private final ConcurrentHashMap<String, SharedSnapshot> sharedSnapshots = new ConcurrentHashMap<>();
    /** Bumped after every configuration or entity write, so that a snapshot built before it is not reused. */
    private volatile long configVersion;

    private record SharedSnapshot(long version, ConfigSnapshot snapshot) {
    }

    ConfigSnapshot loadConfig(String entityId, String resource) {
        long version = configVersion;
        if (!configured.containsKey(entityId)) {
            SharedSnapshot known = sharedSnapshots.get(resource);
            if (known != null && known.version() == version) {
                return known.snapshot();
            }
            ConfigSnapshot snapshot = new ConfigSnapshot(null, LevelConfig.EMPTY, LevelConfig.EMPTY,
                    getLevel(ConfigScope.resource(resource)), getLevel(ConfigScope.system()));
            sharedSnapshots.put(resource, new SharedSnapshot(version, snapshot));
            return snapshot;
        }
        return new ConfigSnapshot(entities.get(entityId),
                getLevel(ConfigScope.entity(entityId, resource)),
                getLevel(ConfigScope.entity(entityId, DEFAULT_RESOURCE)),
                getLevel(ConfigScope.resource(resource)),
                getLevel(ConfigScope.system()));
    }

    /** {@link dev.zaelimiter.store.InPlaceBuckets#sharedConfigVersion}: the version read before the entity. */
    long sharedConfigVersion(String entityId) {
        long version = configVersion;
        return configured.containsKey(entityId) ? InPlaceBuckets.UNVERSIONED : version;
    }

    LevelConfig getLevel(ConfigScope scope) {
        return config.getOrDefault(scope, LevelConfig.EMPTY);
    }

    void putLimits(ConfigScope scope, List<Limit> limits) {
        updateLevel(scope, level -> level.withLimits(limits));
    }

    void putDisabled(ConfigScope scope, DisabledMode mode) {
        updateLevel(scope, level -> level.withDisabled(mode));
    }

    void putCascade(ConfigScope scope, Boolean cascade) {
        updateLevel(scope, level -> level.withCascade(cascade));
    }

    void putPause(ConfigScope scope, Long until) {
        updateLevel(scope, level -> level.withPausedUntil(until));
    }

    private synchronized void updateLevel(ConfigScope scope, UnaryOperator<LevelConfig> change) {
        if (scope.isEntity()) {
            configured.put(scope.entityId(), Boolean.TRUE);
        }
        config.compute(scope, (key, old) -> {
            LevelConfig next = change.apply(old == null ? LevelConfig.EMPTY : old);
            return next.isEmpty() ? null : next;
        });
        configChanged();
    }

    private synchronized void configChanged() {
        configVersion = configVersion + 1;
    }

    synchronized void createEntity(Entity entity) {
        configured.put(entity.id(), Boolean.TRUE);
        if (entities.putIfAbsent(entity.id(), entity) != null) {
            throw new EntityExistsException(entity.id());
        }
        configChanged();
    }

    Optional<Entity> getEntity(String entityId) {
        return Optional.ofNullable(entities.get(entityId));
    }

    synchronized void updateEntity(Entity entity) {
        if (entities.replace(entity.id(), entity) == null) {
            throw new EntityNotFoundException(entity.id());
        }
        configChanged();
    }

    synchronized boolean deleteEntity(String entityId) {
        boolean existed = entities.remove(entityId) != null;
        config.keySet().removeIf(scope -> entityId.equals(scope.entityId()));
        configured.remove(entityId);
        configChanged();
        return existed;
    }

    List<ConfigScope> entityScopes(String entityId) {
        return config.keySet().stream()
                .filter(scope -> entityId.equals(scope.entityId()))
                .sorted(Comparator.comparing(ConfigScope::resource))
                .toList();
    }

    List<Entity> children(String parentId) {
        return entities.values().stream()
                .filter(e -> parentId.equals(e.parentId()))
                .sorted(Comparator.comparing(Entity::id))
                .toList();
    }
}
