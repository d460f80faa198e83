package dev.zaelimiter.store.redis;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.EntityExistsException;
import dev.zaelimiter.EntityNotFoundException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LevelConfig;

import io.lettuce.core.ScriptOutputType;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static dev.zaelimiter.internal.Identifiers.DEFAULT_RESOURCE;

/**
 * Configuration levels and entity records. A call's configuration (five hashes and the configuration version) is
 * read in one script run and kept per entity and resource while the configuration version stays the one this
 * process last saw, for at most {@code stampTtl} by the limiter's clock (a clock a second or more behind the
 * reading makes it stale). Every change adds one to the version; every bucket decision answers with it, so that a
 * change made by another process is in force here from this process's second decision after it, and a change made
 * here from the next one.
 */
final class Configuration {

    private static final RedisCalls.Script READ = RedisCalls.Script.load("config");
    private static final RedisCalls.Script LEVEL = RedisCalls.Script.load("level", ScriptOutputType.INTEGER);
    private static final RedisCalls.Script ENTITY = RedisCalls.Script.load("entity", ScriptOutputType.INTEGER);
    private static final RedisCalls.Script DELETE = RedisCalls.Script.load("delete-entity",
            ScriptOutputType.INTEGER);
    static final RedisCalls.Script HASHES = RedisCalls.Script.load("hashes");
    /** What {@code entity.lua} and {@code delete-entity.lua} answer when the record is not as the caller read it. */
    private static final long READ_AGAIN = -3;
    private static final int MAX_CACHED = 100_000;
    /**
     * How far behind a reading the clock must show to make it stale: closer, another thread read the clock first
     * and got here second.
     */
    private static final long STEP_BACK_MILLIS = 1_000;

    private record Cached(long version, long loadedAt, ConfigSnapshot snapshot) {
    }

    private final RedisCalls redis;
    private final Keys keys;
    private final Clock clock;
    private final long stampTtl;
    private final AtomicLong version = new AtomicLong(-1);
    private final ConcurrentHashMap<List<String>, Cached> cache = new ConcurrentHashMap<>();
    /** The last level read per key, handed out again while it is equal, so that callers can compare by identity. */
    private final ConcurrentHashMap<String, LevelConfig> levels = new ConcurrentHashMap<>();
    /** The parent of each entity as last read ({@code ""}: none), for bucket keys on a cluster. */
    private final ConcurrentHashMap<String, String> parents = new ConcurrentHashMap<>();

    Configuration(RedisCalls redis, Keys keys, Clock clock, long stampTtl) {
        this.redis = redis;
        this.keys = keys;
        this.clock = clock;
        this.stampTtl = stampTtl;
    }

    /** Takes note of a configuration version the server reported. */
    void seen(long reported) {
        version.accumulateAndGet(reported, Math::max);
    }

    ConfigSnapshot load(String entityId, String resource) {
        List<String> key = List.of(entityId, resource);
        Cached cached = cache.get(key);
        long now = clock.millis();
        if (cached != null && cached.version() == version.get() && now - cached.loadedAt() < stampTtl
                && cached.loadedAt() - now < STEP_BACK_MILLIS) {
            return cached.snapshot();
        }
        List<String> k = List.of(keys.configVersion(), keys.entity(entityId),
                keys.level(ConfigScope.entity(entityId, resource)),
                keys.level(ConfigScope.entity(entityId, DEFAULT_RESOURCE)),
                keys.level(ConfigScope.resource(resource)), keys.level(ConfigScope.system()));
        List<Object> reply = redis.run(READ, k, List.of());
        long at = Long.parseLong(String.valueOf(reply.get(0)));
        seen(at);
        ConfigSnapshot snapshot;
        try {
            snapshot = new ConfigSnapshot(Codec.entity(Codec.fields(reply.get(1))), level(k.get(2), reply.get(2)),
                    level(k.get(3), reply.get(3)), level(k.get(4), reply.get(4)), level(k.get(5), reply.get(5)));
        } catch (RuntimeException e) {
            throw corrupt("the configuration of " + entityId + " on " + resource, e);
        }
        if (cache.size() >= MAX_CACHED) {
            cache.clear();
        }
        cache.put(key, new Cached(at, now, snapshot));
        learnParent(entityId, snapshot.entity() == null ? null : snapshot.entity().parentId());
        return snapshot;
    }

    /**
     * The tree {@code entityId}'s buckets belong to on a cluster: its parent, or itself when it has none, as this
     * process last read its record (with its configuration, at most one decision after a change it has not made);
     * read from Redis when not known.
     */
    String tree(String entityId) {
        String parent = parents.get(entityId);
        if (parent == null) {
            parent = parentOf(entityId);
            learnParent(entityId, parent);
        }
        return parent.isEmpty() ? entityId : parent;
    }

    private String parentOf(String entityId) {
        String parent = redis.call(r -> r.hget(keys.entity(entityId), Codec.PARENT));
        return parent == null ? "" : parent;
    }

    private void learnParent(String entityId, String parentId) {
        if (parents.size() >= MAX_CACHED) {
            parents.clear();
        }
        parents.put(entityId, parentId == null ? "" : parentId);
    }

    private LevelConfig level(String key, Object fields) {
        LevelConfig read = Codec.level(Codec.fields(fields));
        LevelConfig known = levels.get(key);
        if (read.equals(known)) {
            return known;
        }
        if (levels.size() >= MAX_CACHED) {
            levels.clear();
        }
        levels.put(key, read);
        return read;
    }

    LevelConfig get(ConfigScope scope) {
        String key = keys.level(scope);
        Map<String, String> fields = redis.call(r -> r.hgetall(key));
        try {
            return Codec.level(fields);
        } catch (RuntimeException e) {
            throw corrupt("the " + scope + " level (" + key + ")", e);
        }
    }

    void putLimits(ConfigScope scope, List<Limit> limits) {
        put(scope, Codec.LIMITS, limits == null ? "" : Codec.limits(limits));
    }

    void putDisabled(ConfigScope scope, DisabledMode mode) {
        put(scope, Codec.DISABLED, mode == null ? "" : mode.name());
    }

    void putCascade(ConfigScope scope, Boolean cascade) {
        put(scope, Codec.CASCADE, cascade == null ? "" : cascade.toString());
    }

    void putPause(ConfigScope scope, Long until) {
        put(scope, Codec.PAUSED, until == null ? "" : until.toString());
    }

    private void put(ConfigScope scope, String field, String value) {
        List<String> k = new ArrayList<>(List.of(keys.level(scope), keys.configVersion()));
        if (scope.isEntity()) {
            k.add(keys.entityScopes(scope.entityId()));
        }
        changed(redis.run(LEVEL, k, List.of(field, value, scope.isEntity() ? scope.resource() : "")));
    }

    private void changed(Object newVersion) {
        seen((Long) newVersion);
    }

    /** What {@code entity.lua} answered, and the parent the record had before ({@code ""}: none). */
    private record Written(long answer, String oldParent) {
    }

    void createEntity(Entity entity) {
        if (writeEntity("create", entity).answer() == -1) {
            throw new EntityExistsException(entity.id());
        }
    }

    /** Replaces the record; the parent it had before ({@code ""}: none). */
    String updateEntity(Entity entity) {
        Written written = writeEntity("update", entity);
        if (written.answer() == -2) {
            throw new EntityNotFoundException(entity.id());
        }
        return written.oldParent();
    }

    /**
     * Writes the record with one script run, sent again with the parent read from Redis when the one this process
     * knew was not the record's.
     */
    private Written writeEntity(String mode, Entity entity) {
        String record = keys.entity(entity.id());
        String newParent = entity.parentId() == null ? record : keys.children(entity.parentId());
        String oldParent = parents.getOrDefault(entity.id(), "");
        while (true) {
            List<String> args = new ArrayList<>(List.of(mode, entity.id(), oldParent));
            Codec.entity(entity).forEach((field, value) -> {
                args.add(field);
                args.add(value);
            });
            long answer = redis.run(ENTITY, List.of(record, keys.configVersion(),
                    oldParent.isEmpty() ? record : keys.children(oldParent), newParent), args);
            if (answer != READ_AGAIN) {
                if (answer > 0) {
                    seen(answer);
                    learnParent(entity.id(), entity.parentId());
                }
                return new Written(answer, oldParent);
            }
            oldParent = parentOf(entity.id());
        }
    }

    Optional<Entity> getEntity(String entityId) {
        Map<String, String> fields = redis.call(r -> r.hgetall(keys.entity(entityId)));
        try {
            return Optional.ofNullable(Codec.entity(fields));
        } catch (RuntimeException e) {
            throw corrupt("the entity record " + keys.entity(entityId), e);
        }
    }

    /** Removes the record and the levels of {@code entityId}; whether there was a record. */
    boolean deleteEntity(String entityId) {
        String record = keys.entity(entityId);
        while (true) {
            String parent = parentOf(entityId);
            List<String> resources = redis.call(r -> r.smembers(keys.entityScopes(entityId))).stream().sorted()
                    .toList();
            List<String> k = new ArrayList<>(List.of(record, keys.entityScopes(entityId), keys.configVersion(),
                    parent.isEmpty() ? record : keys.children(parent)));
            List<String> args = new ArrayList<>(List.of(entityId, parent));
            for (String resource : resources) {
                k.add(keys.level(ConfigScope.entity(entityId, resource)));
                args.add(resource);
            }
            long existed = redis.run(DELETE, k, args);
            if (existed != READ_AGAIN) {
                version.incrementAndGet();
                parents.remove(entityId);
                return existed == 1;
            }
        }
    }

    List<ConfigScope> entityScopes(String entityId) {
        return redis.call(r -> r.smembers(keys.entityScopes(entityId))).stream().sorted()
                .map(resource -> ConfigScope.entity(entityId, resource)).toList();
    }

    List<Entity> children(String parentId) {
        List<String> ids = redis.call(r -> r.smembers(keys.children(parentId))).stream().sorted().toList();
        if (ids.isEmpty()) {
            return List.of();
        }
        List<Object> records = redis.run(HASHES, ids.stream().map(keys::entity).toList(), List.of());
        List<Entity> children = new ArrayList<>();
        for (Object record : records) {
            Entity child = Codec.entity(Codec.fields(record));
            if (child != null && parentId.equals(child.parentId())) {
                children.add(child);
            }
        }
        children.sort(Comparator.comparing(Entity::id));
        return children;
    }

    private dev.zaelimiter.CorruptStateException corrupt(String what, RuntimeException e) {
        return new dev.zaelimiter.CorruptStateException(what + " in Redis cannot be read (" + e + "); set the level"
                + " or the entity again to repair it", e);
    }
}
